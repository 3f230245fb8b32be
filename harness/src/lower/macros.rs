//! Macros as statements: prints are dropped when they read no memory, `panic!` and the
//! assertions trap as the device does.

use super::{Context, Lowered, Scope};
use syn::punctuated::Punctuated;
use syn::{Expr, Token};

/// Macros that print; the device prints through `vprintf`, which the twin leaves out.
const PRINTS: &[&str] = &["println", "print", "eprintln", "eprint", "cuda_printf", "printf"];

impl Context<'_> {
    /// A macro used as a statement.
    pub(super) fn macro_stmt(&self, mac: &syn::Macro, scope: &mut Scope) -> Lowered<String> {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let args = || {
            mac.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
                .map(|a| a.into_iter().collect::<Vec<_>>())
                .map_err(|e| (self.span(mac), format!("`{name}!` not understood: {e}")))
        };
        match name.as_str() {
            _ if PRINTS.contains(&name.as_str()) => {
                // What a print reads from memory would be measured: such prints are kept out.
                let reads = args()?
                    .iter()
                    .skip(1)
                    .any(|a| !matches!(a, Expr::Path(_) | Expr::Lit(_)));
                if reads {
                    return self.fail(mac, format!("`{name}!` of a computed value is not lowered"));
                }
                Ok(format!("/* {name}! left out */;\n"))
            }
            // Compiled out of release builds, as kernels are built.
            "debug_assert" | "debug_assert_eq" | "debug_assert_ne" => Ok(format!("/* {name}! left out */;\n")),
            "panic" | "unreachable" | "unimplemented" | "todo" => Ok("__trap();\n".to_string()),
            "assert" | "assert_eq" | "assert_ne" => {
                let args = args()?;
                let condition = match (name.as_str(), args.as_slice()) {
                    ("assert", [condition, ..]) => self.expr(condition, scope)?,
                    ("assert_eq", [a, b, ..]) => format!("({} == {})", self.expr(a, scope)?, self.expr(b, scope)?),
                    ("assert_ne", [a, b, ..]) => format!("({} != {})", self.expr(a, scope)?, self.expr(b, scope)?),
                    _ => return self.fail(mac, format!("`{name}!` without its operands")),
                };
                Ok(format!("if (!({condition})) __trap();\n"))
            }
            "gpu_assert" => self.gpu_assert(mac, scope),
            "gpu_printf" => Ok(format!("{};\n", self.gpu_printf(mac, scope)?)),
            "ptx_asm" => self.ptx_asm(mac, scope),
            "asm" => self.rust_asm(mac, scope),
            _ => self.fail(mac, format!("macro `{name}!` is not lowered")),
        }
    }
}
