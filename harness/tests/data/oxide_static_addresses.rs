// Constants holding the addresses of statics, in the shape of the provenance examples of
// NVlabs/cuda-oxide (commit a105afd522b73a6712a802e30bd900cd04cc8019).
use cuda_device::{kernel, thread, DisjointSlice};

static BYTES: [u8; 8] = [9, 8, 7, 6, 5, 4, 3, 2];
static ONE: u32 = 11;
static TWO: u32 = 22;
static ROWS: [[f32; 2]; 3] = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];

const BOTH: (&[u8; 8], &u8, bool) = (&BYTES, &BYTES[3], true);
const CHOICES: [(&u32, bool); 2] = [(&ONE, false), (&TWO, true)];
const MIDDLE_ROW: &[f32; 2] = &ROWS[1];

pub struct Keeper {
    pub bytes: &'static [u8; 8],
    pub on: bool,
}

const KEPT: Keeper = Keeper { bytes: &BYTES, on: true };

// A pointer cast to another element type is a reinterpret_cast: no constant initializer in C++.
const PAST_END: *const f32 = unsafe { (&raw const ROWS as *const f32).add(3) };

#[kernel]
pub unsafe fn tuple_of_addresses(out: *mut u32) {
    let i = thread::index_1d().get();
    let (whole, one, flag) = BOTH;
    unsafe {
        out.add(i).write(whole[i & 7] as u32 + *one as u32 + flag as u32);
    }
}

#[kernel]
pub unsafe fn table_of_addresses(out: *mut u32) {
    let i = thread::index_1d().get();
    let (p, flag) = CHOICES[i & 1];
    unsafe {
        out.add(i).write(*p + flag as u32);
    }
}

fn middle_row() -> &'static [f32; 2] {
    MIDDLE_ROW
}

#[kernel]
pub unsafe fn row_of_static(out: *mut f32) {
    let i = thread::index_1d().get();
    let row = middle_row();
    unsafe {
        out.add(i).write(row[i & 1]);
    }
}

#[kernel]
pub fn struct_of_address(mut out: DisjointSlice<u8>) {
    if let Some((slot, index)) = out.get_mut_indexed() {
        let k = KEPT;
        *slot = k.bytes[index.get() & 7] + k.on as u8;
    }
}

#[kernel]
pub unsafe fn past_the_end(out: *mut u64) {
    let i = thread::index_1d().get();
    unsafe {
        out.add(i).write(PAST_END as u64);
    }
}

// Statics holding numbers and addresses, in the shape of cuda-oxide's device_global example:
// the device reads their initial values.
static SEED: i32 = -7;
static ONE_REF: &u32 = &ONE;
static INNER: &f32 = &ROWS[2][1];

#[kernel]
pub unsafe fn static_initializers(out: *mut u32) {
    unsafe {
        *out.add(0) = *ONE_REF;
        *out.add(1) = (*INNER).to_bits();
        *out.add(2) = SEED as u32;
    }
}
