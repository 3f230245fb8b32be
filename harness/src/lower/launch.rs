//! What a kernel asks of its launch beyond a grid and a block: a cooperative launch (for
//! `grid::sync()`), a thread block cluster (`#[cluster_launch(x, y, z)]`), dynamic shared
//! memory (`DynamicSharedArray`); and the launch that gives it.

use super::{Context, Lowered, Scope};
use syn::Expr;

/// Bytes of dynamic shared memory a twin gets when the launch's size is not known here: the
/// most any architecture gives without opting in, so that every offset a launch of up to that
/// size reaches stays inside.
pub const DEFAULT_DYNAMIC_SHARED_BYTES: u64 = 48 * 1024;

/// The most dynamic shared memory a block may have on sm_90.
const MAX_DYNAMIC_SHARED_BYTES: u64 = 227 * 1024;

/// Blocks all resident at once in any cooperative launch of one block a multiprocessor on the
/// devices measured (132 multiprocessors on H100 and H200).
pub const COOPERATIVE_BLOCKS: u32 = 132;

/// A kernel's needs of its launch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LaunchNeeds {
    /// Launched cooperatively: all blocks resident, the grid barrier's workspace set up.
    pub cooperative: bool,
    /// Blocks a cluster, by axis.
    pub cluster: Option<[u32; 3]>,
    /// Bytes of dynamic shared memory.
    pub dynamic_shared_bytes: u64,
}

impl LaunchNeeds {
    /// Whether a plain `<<<grid, block>>>` launch gives all of it.
    pub fn plain(&self) -> bool {
        *self == LaunchNeeds::default()
    }

    /// The grid a launch of these needs gets instead of `grid`, and why: a cooperative grid
    /// is cut to what is resident at once, a clustered one to whole clusters.
    pub fn fit_grid(&self, grid: [u32; 3]) -> Option<([u32; 3], String)> {
        let mut fitted = grid;
        let mut why = Vec::new();
        if self.cooperative && fitted.iter().product::<u32>() > COOPERATIVE_BLOCKS {
            fitted = [COOPERATIVE_BLOCKS.min(fitted[0]).max(1), 1, 1];
            let per_block = fitted[0];
            fitted[1] = (COOPERATIVE_BLOCKS / per_block).min(grid[1]).max(1);
            why.push(format!(
                "a cooperative launch has all its blocks resident: grid {grid:?} cut to {COOPERATIVE_BLOCKS} blocks at most"
            ));
        }
        if let Some(cluster) = self.cluster {
            let before = fitted;
            for axis in 0..3 {
                let c = cluster[axis].max(1);
                fitted[axis] = (fitted[axis] / c).max(1) * c;
            }
            if fitted != before {
                why.push(format!("the grid is whole clusters of {cluster:?}"));
            }
        }
        (fitted != grid).then(|| (fitted, format!("{}: grid {fitted:?}", why.join("; "))))
    }

    /// The host statement that launches `kernel` with these needs.
    pub fn launch_call(&self, kernel: &str, grid: [u32; 3], block: [u32; 3], args: &[String]) -> String {
        let [gx, gy, gz] = grid;
        let [bx, by, bz] = block;
        let [cx, cy, cz] = self.cluster.unwrap_or([1, 1, 1]);
        let mut call = format!(
            "kl::launch_ex({kernel}, dim3({gx}u, {gy}u, {gz}u), dim3({bx}u, {by}u, {bz}u), {}u, {}, dim3({cx}u, {cy}u, {cz}u)",
            self.dynamic_shared_bytes, self.cooperative
        );
        for arg in args {
            call.push_str(", ");
            call.push_str(arg);
        }
        call.push(')');
        call
    }
}

/// `#[name(a, b, c)]` of a kernel as numbers.
fn attribute_numbers(f: &syn::ItemFn, name: &str) -> Option<Vec<u32>> {
    let attr = f.attrs.iter().find(|a| a.path().is_ident(name))?;
    let list = attr
        .parse_args_with(syn::punctuated::Punctuated::<syn::LitInt, syn::Token![,]>::parse_terminated)
        .ok()?;
    list.iter().map(|n| n.base10_parse().ok()).collect()
}

/// The largest literal `shared_mem_bytes: N` a launch of the file gives, if any.
fn file_dynamic_shared(syntax: &syn::File) -> Option<u64> {
    use syn::visit::Visit;
    struct Sizes(Option<u64>);
    impl Visit<'_> for Sizes {
        fn visit_field_value(&mut self, f: &syn::FieldValue) {
            if let (syn::Member::Named(n), Expr::Lit(l)) = (&f.member, &f.expr) {
                if let (true, syn::Lit::Int(i)) = (n == "shared_mem_bytes", &l.lit) {
                    if let Ok(v) = i.base10_parse::<u64>() {
                        self.0 = Some(self.0.map_or(v, |m| m.max(v)));
                    }
                }
            }
            syn::visit::visit_field_value(self, f);
        }
    }
    let mut sizes = Sizes(None);
    sizes.visit_file(syntax);
    sizes.0
}

impl Context<'_> {
    /// What kernel `f` needs of its launch, given its code and the code of the file it calls.
    pub(super) fn launch_needs(&self, f: &syn::ItemFn, code: &[&str]) -> LaunchNeeds {
        let cooperative = f.attrs.iter().any(|a| a.path().is_ident("cooperative_launch"))
            || code.iter().any(|c| c.contains("kl::cg_grid_sync()"));
        let cluster = attribute_numbers(f, "cluster_launch").and_then(|n| match n[..] {
            [x] => Some([x, 1, 1]),
            [x, y] => Some([x, y, 1]),
            [x, y, z] => Some([x, y, z]),
            _ => None,
        });
        let dynamic_shared_bytes = if code.iter().any(|c| c.contains("kl::dyn_shared<")) {
            let asked = syn::parse_file(&self.file.text)
                .ok()
                .as_ref()
                .and_then(file_dynamic_shared);
            asked
                .unwrap_or(0)
                .clamp(DEFAULT_DYNAMIC_SHARED_BYTES, MAX_DYNAMIC_SHARED_BYTES)
        } else {
            0
        };
        LaunchNeeds {
            cooperative,
            cluster,
            dynamic_shared_bytes,
        }
    }

    /// `DynamicSharedArray::<T, ALIGN>::get()`, `get_raw()` and `offset(bytes)`: pointers into
    /// the block's dynamic shared memory, whose base is aligned for any `ALIGN`.
    pub(super) fn dynamic_shared_call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<String> {
        let Expr::Path(p) = &*c.func else {
            return self.fail(c, "call through an expression");
        };
        let segments: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
        let [.., owner, method] = segments[..] else {
            return self.fail(c, "`DynamicSharedArray` call without its method");
        };
        let generic: Vec<&syn::GenericArgument> = match &owner.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.iter().collect(),
            _ => Vec::new(),
        };
        let elem = match generic.first() {
            Some(syn::GenericArgument::Type(t)) => self.c_type(t)?,
            _ => return self.fail(c, "`DynamicSharedArray` without its element type named"),
        };
        let align = match generic.get(1) {
            Some(a) => self.generic_value(a)?,
            None => "16".to_string(),
        };
        let args: Vec<String> = c.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        Ok(match (method.ident.to_string().as_str(), args.as_slice()) {
            ("get", []) => format!("kl::dyn_shared<{elem}, {align}>(0ull)"),
            ("get_raw", []) => format!("kl::dyn_shared<unsigned char, {align}>(0ull)"),
            ("offset", [bytes]) => format!("kl::dyn_shared<{elem}, {align}>((unsigned long long)({bytes}))"),
            ("alignment", []) => format!("((unsigned long long)({align}))"),
            (other, _) => return self.fail(c, format!("`DynamicSharedArray::{other}` is not lowered")),
        })
    }
}

/// C++ of dynamic shared memory and of launches with attributes, appended to the prelude.
#[macro_export]
#[doc(hidden)]
macro_rules! launch_prelude {
    () => {
        r#"namespace kl {
// The block's dynamic shared memory, aligned for the largest `ALIGN` a kernel asks.
template <typename T, int ALIGN> __device__ T* dyn_shared(unsigned long long byte_offset) {
  static_assert(ALIGN <= 1024, "dynamic shared memory is aligned to 1024 bytes");
#ifdef __CUDACC__
  extern __shared__ __align__(1024) unsigned char kl_dynamic_shared[];
#else
  static unsigned char kl_dynamic_shared[1];
#endif
  return (T*)(kl_dynamic_shared + byte_offset);
}
// A launch with dynamic shared memory, a cluster shape or as a cooperative launch.
template <typename... P, typename... A>
cudaError_t launch_ex(void (*kernel)(P...), dim3 grid, dim3 block, unsigned int shared, bool cooperative, dim3 cluster, A... args) {
#ifdef __CUDACC__
  if (shared > 48u * 1024u) {
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
    if (e != cudaSuccess) return e;
  }
  cudaLaunchAttribute attrs[2];
  unsigned int n = 0;
  if (cooperative) {
    attrs[n].id = cudaLaunchAttributeCooperative;
    attrs[n].val.cooperative = 1;
    ++n;
  }
  if (cluster.x * cluster.y * cluster.z > 1) {
    attrs[n].id = cudaLaunchAttributeClusterDimension;
    attrs[n].val.clusterDim.x = cluster.x;
    attrs[n].val.clusterDim.y = cluster.y;
    attrs[n].val.clusterDim.z = cluster.z;
    ++n;
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  config.stream = 0;
  config.attrs = attrs;
  config.numAttrs = n;
  return cudaLaunchKernelEx(&config, kernel, args...);
#else
  (void)grid; (void)block; (void)shared; (void)cooperative; (void)cluster;
  kernel(((P)args)...);
  return cudaSuccess;
#endif
}
}
"#
    };
}
