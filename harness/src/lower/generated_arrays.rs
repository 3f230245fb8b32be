//! `core::array::from_fn(|i| ..)`: the array whose element `i` is the closure's value at `i`,
//! computed in index order as Rust does. Its element type and length come from the `let`'s
//! type (`let a: [u32; 4] = ..`) or from the turbofish (`from_fn::<u32, 4, _>`).

use super::{Context, Lowered, Scope};
use syn::{Expr, GenericArgument, PathArguments, Type};

/// `kl::from_fn`, appended to the prelude.
#[macro_export]
#[doc(hidden)]
macro_rules! generated_arrays_prelude {
    () => {
        r#"namespace kl {
template <typename T, unsigned long long N, typename F> __device__ array<T, N> from_fn(F f) {
  array<T, N> out{};
  for (unsigned long long i = 0; i < N; ++i) out.v[i] = static_cast<T>(f(i));
  return out;
}
}
"#
    };
}

/// The closure of `array::from_fn(f)` and the turbofish's element type and length, if written.
fn from_fn_call(e: &Expr) -> Option<(&Expr, Option<(&Type, &Expr)>)> {
    let Expr::Call(c) = e else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    let segments: Vec<_> = p.path.segments.iter().collect();
    let [.., owner, last] = segments.as_slice() else {
        return None;
    };
    if last.ident != "from_fn" || owner.ident != "array" || c.args.len() != 1 {
        return None;
    }
    let generics = match &last.arguments {
        PathArguments::AngleBracketed(a) => match a.args.iter().collect::<Vec<_>>().as_slice() {
            [GenericArgument::Type(t), GenericArgument::Const(n), ..] => Some((t, n)),
            _ => None,
        },
        _ => None,
    };
    Some((&c.args[0], generics))
}

impl Context<'_> {
    /// `let a: [T; N] = core::array::from_fn(f);` as `kl::array<T, N> a = kl::from_fn<T, N>(f);`.
    pub(super) fn generated_array_local(
        &self,
        rust_name: &str,
        ty: Option<&Type>,
        init: &Expr,
        scope: &mut Scope,
    ) -> Lowered<Option<String>> {
        let Some((closure, generics)) = from_fn_call(init) else {
            return Ok(None);
        };
        let (elem, len) = match (ty, generics) {
            (Some(Type::Array(a)), _) => (&*a.elem, &a.len),
            (_, Some((elem, len))) if !matches!(elem, Type::Infer(_)) => (elem, len),
            _ => return self.fail(init, "`array::from_fn` without the array's type written is not lowered"),
        };
        let elem = self.c_type(elem)?;
        let len = self.expr(len, scope)?;
        let f = self.expr(closure, scope)?;
        let name = scope.bind(rust_name);
        self.note_type(&name, ty, None, scope);
        Ok(Some(format!(
            "kl::array<{elem}, {len}> {name} = kl::from_fn<{elem}, {len}>({f});\n"
        )))
    }
}
