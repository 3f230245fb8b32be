// Enums with data in the shapes of NVlabs/cuda-oxide a105afd522b73a6712a802e30bd900cd04cc8019
// (`examples/enum_payload_addr`, `examples/enum_abi_multi_payload`) and dimforge/sparkl
// 29cebe6e29bae35d9cc980e04db53ebee3230ade (`GpuGridProjectionStatus`).
use cuda_std::prelude::*;

#[derive(Copy, Clone, PartialEq)]
pub enum Status {
    Unknown,
    Near(usize),
    Far(usize),
}

#[repr(u8)]
#[derive(Copy, Clone)]
pub enum Packed {
    Small(u8, u32) = 3,
    Big { value: u32 },
}

#[repr(C)]
#[derive(Copy, Clone)]
pub enum Tagged {
    Real(f32),
    Bits(u32),
}

#[repr(u32)]
#[derive(Copy, Clone)]
pub enum Code {
    Low = 2,
    High = 9,
}

pub struct Cell {
    pub status: Status,
    pub mass: f32,
}

#[kernel]
pub unsafe fn classify(cells: *mut Cell, out: *mut u32, n: usize) {
    let i = thread::index_1d() as usize;
    if i >= n {
        return;
    }
    let cell = &mut *cells.add(i);
    if cell.status == Status::Unknown {
        cell.status = if cell.mass > 1.0 { Status::Near(i) } else { Status::Far(i) };
    }
    match cell.status {
        Status::Near(id) | Status::Far(id) if id > 2 => {
            *out.add(i) = id as u32;
        }
        Status::Unknown => {}
        _ => *out.add(i) = 0,
    }
    let near = matches!(cell.status, Status::Near(_));
    if near {
        *out.add(i) += 1;
    }
}

#[kernel]
pub unsafe fn payloads(input: *const f32, out: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    if i >= n {
        return;
    }
    let mut t = Tagged::Real(*input.add(i));
    if let Tagged::Real(v) = &mut t {
        *v *= 2.0;
    }
    let p = Packed::Big { value: 5 };
    let extra = match p {
        Packed::Small(_, w) => w,
        Packed::Big { value } => value,
    };
    let code = if extra > 4 { Code::High } else { Code::Low };
    let Tagged::Real(r) = t else { return };
    *out.add(i) += code as u32 as f32;
    *out.add(i) = r + extra as f32;
}
