//! `cuda_device` stubs whose instruction the code generator supplies and that `cuda_device`'s
//! own helpers call unqualified: the `*_sync` shuffles, `redux.sync`, `elect.sync`,
//! `ldmatrix`, the shared-window address and the WGMMA shared-memory descriptor. Those needing
//! Blackwell (`tcgen05`, cluster launch control) are refused: the harness runs on sm_90.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use syn::visit::Visit;
use syn::Expr;

/// `redux_sync_min_i32` and friends: the CUDA `__reduce_*_sync` builtin and the operand type.
fn redux(name: &str) -> Option<(&'static str, &'static str)> {
    Some(match name.strip_prefix("redux_sync_")? {
        "add" => ("__reduce_add_sync", "unsigned int"),
        "min_u32" => ("__reduce_min_sync", "unsigned int"),
        "min_i32" => ("__reduce_min_sync", "int"),
        "max_u32" => ("__reduce_max_sync", "unsigned int"),
        "max_i32" => ("__reduce_max_sync", "int"),
        "and" => ("__reduce_and_sync", "unsigned int"),
        "or" => ("__reduce_or_sync", "unsigned int"),
        "xor" => ("__reduce_xor_sync", "unsigned int"),
        _ => return None,
    })
}

/// Whether the stub stands for a Blackwell (sm_100) instruction.
fn needs_blackwell(name: &str) -> bool {
    name.starts_with("tcgen05") || name.starts_with("clc_") || name.contains("cluster_launch_control")
}

impl Context<'_> {
    /// Refuses a kernel that calls a Blackwell stub anywhere in its body, before anything it
    /// calls earlier (a descriptor builder) gives a less telling reason.
    pub(super) fn refuse_blackwell(&self, body: &syn::Block) -> Lowered<()> {
        struct Finder<'c, 'a> {
            cx: &'c Context<'a>,
            found: Option<(syn::ExprCall, String)>,
        }
        impl<'ast> Visit<'ast> for Finder<'_, '_> {
            fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
                if self.found.is_none() {
                    if let Expr::Path(p) = &*c.func {
                        let name = last_segment(&p.path);
                        if needs_blackwell(&name) && self.cx.names_intrinsic(&p.path, &name) {
                            self.found = Some((c.clone(), name));
                            return;
                        }
                    }
                }
                syn::visit::visit_expr_call(self, c);
            }
        }
        let mut finder = Finder { cx: self, found: None };
        finder.visit_block(body);
        match finder.found {
            Some((c, name)) => self.fail(
                &c,
                format!("`{name}` needs sm_100 (Blackwell), which the H100/H200 harness machine cannot run"),
            ),
            None => Ok(()),
        }
    }

    /// A call of one of these stubs as its builtin, or `None` when the call is something else.
    pub(super) fn warp_stub_call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let name = last_segment(&p.path);
        let known = redux(&name).is_some()
            || needs_blackwell(&name)
            || (name.ends_with("_sync") && name.starts_with("shuffle"))
            || matches!(
                name.as_str(),
                "elect_sync" | "cvta_generic_to_shared_offset" | "ldmatrix_x1" | "ldmatrix_x1_trans" | "make_smem_desc"
            );
        if !known || !self.names_intrinsic(&p.path, &name) {
            return Ok(None);
        }
        if needs_blackwell(&name) {
            return self.fail(
                c,
                format!("`{name}` needs sm_100 (Blackwell), which the H100/H200 harness machine cannot run"),
            );
        }
        let args: Vec<String> = c.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        Ok(match (name.as_str(), args.as_slice()) {
            (other, [mask, value]) if redux(other).is_some() => {
                let (builtin, ty) = redux(other).unwrap_or_default();
                Some(format!("(({ty}){builtin}({mask}, ({ty})({value})))"))
            }
            ("elect_sync", [mask]) => Some(format!("kl::elect_sync({mask})")),
            ("cvta_generic_to_shared_offset", [ptr]) => {
                Some(format!("((unsigned long long)__cvta_generic_to_shared({ptr}))"))
            }
            ("ldmatrix_x1", [ptr]) => Some(format!("kl::ldmatrix_x1({ptr})")),
            ("ldmatrix_x1_trans", [ptr]) => Some(format!("kl::ldmatrix_x1_trans({ptr})")),
            ("make_smem_desc", [ptr]) => Some(format!("kl::make_smem_desc({ptr})")),
            (other, args) => super::oxide::warp_intrinsic(other, args),
        })
    }
}

/// C++ for these stubs, appended to the prelude.
#[macro_export]
#[doc(hidden)]
macro_rules! warp_stubs_prelude {
    () => {
        r#"#ifndef __CUDACC__
unsigned int __reduce_add_sync(unsigned int, unsigned int);
unsigned int __reduce_min_sync(unsigned int, unsigned int);
int __reduce_min_sync(unsigned int, int);
unsigned int __reduce_max_sync(unsigned int, unsigned int);
int __reduce_max_sync(unsigned int, int);
unsigned int __reduce_and_sync(unsigned int, unsigned int);
unsigned int __reduce_or_sync(unsigned int, unsigned int);
unsigned int __reduce_xor_sync(unsigned int, unsigned int);
size_t __cvta_generic_to_shared(const void*);
#endif
namespace kl {
// `elect.sync` (sm_90): the leader's lane and whether this lane is it.
__device__ inline tuple2<unsigned int, bool> elect_sync(unsigned int mask) {
  unsigned int leader = 0;
  unsigned int elected = 0;
#ifdef __CUDACC__
  asm volatile("{\n .reg .pred p;\n elect.sync %0|p, %2;\n selp.u32 %1, 1, 0, p;\n}" : "=r"(leader), "=r"(elected) : "r"(mask));
#endif
  return {leader, elected != 0};
}
// One 8x8 b16 tile from shared memory, as `ldmatrix` loads it.
__device__ inline unsigned int ldmatrix_x1(const void* p) {
  unsigned int r = 0;
#ifdef __CUDACC__
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"((unsigned int)__cvta_generic_to_shared(p)));
#endif
  return r;
}
__device__ inline unsigned int ldmatrix_x1_trans(const void* p) {
  unsigned int r = 0;
#ifdef __CUDACC__
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r) : "r"((unsigned int)__cvta_generic_to_shared(p)));
#endif
  return r;
}
// The WGMMA shared-memory descriptor cuda-oxide builds: the address in 16-byte units, no swizzle.
__device__ inline unsigned long long make_smem_desc(const void* p) {
  unsigned long long a = (unsigned long long)__cvta_generic_to_shared(p);
  return ((a >> 4) & 0x3fffull) | 0xC000000800080000ull;
}
}
"#
    };
}
