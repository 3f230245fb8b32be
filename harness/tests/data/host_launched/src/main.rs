// The host program of the example (see kernel-lib/src/lib.rs): its launches and entry-point
// names instantiate the library's kernels.

use kernel_lib::kernels;

fn main() {
    let names = [kernels::fill_ptx_name::<3>()];
    let module = kernels::load(&ctx).unwrap();
    unsafe { module.gain::<f32>(stream.as_ref(), cfg, 2.0, &src, &mut dst) }.unwrap();
}
