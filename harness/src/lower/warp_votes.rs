//! The masked warp votes and matches of cuda-oxide's generated intrinsics (`sync_mask`,
//! `all_sync`, `ballot_sync`, `match_any_sync`, ..) as the CUDA builtins of the same PTX
//! (`bar.warp.sync`, `vote.sync`, `match.sync`, all sm_70+).

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use syn::Expr;

/// The C++ call for a vote or match with lowered arguments `args`.
fn vote(name: &str, args: &[String]) -> Option<String> {
    Some(match (name, args) {
        ("sync_mask", [m]) => format!("__syncwarp({m})"),
        ("all_sync", [m, p]) => format!("((bool)__all_sync({m}, {p}))"),
        ("any_sync", [m, p]) => format!("((bool)__any_sync({m}, {p}))"),
        ("uni_sync", [m, p]) => format!("((bool)__uni_sync({m}, {p}))"),
        ("ballot_sync", [m, p]) => format!("__ballot_sync({m}, {p})"),
        ("match_any_sync", [m, v]) => format!("__match_any_sync({m}, (unsigned int)({v}))"),
        ("match_any_i64_sync", [m, v]) => format!("__match_any_sync({m}, (unsigned long long)({v}))"),
        // `match.all.sync` with its predicate discarded, as cuda-oxide lowers it.
        ("match_all_sync", [m, v]) => {
            format!("[&]() {{ int kl_all; return __match_all_sync({m}, (unsigned int)({v}), &kl_all); }}()")
        }
        ("match_all_i64_sync", [m, v]) => {
            format!("[&]() {{ int kl_all; return __match_all_sync({m}, (unsigned long long)({v}), &kl_all); }}()")
        }
        _ => return None,
    })
}

impl Context<'_> {
    /// A call of one of these intrinsics as its builtin, or `None` for anything else.
    pub(super) fn warp_vote_call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let name = last_segment(&p.path);
        let placeholders: Vec<String> = c.args.iter().map(|_| String::new()).collect();
        if vote(&name, &placeholders).is_none() || !self.names_intrinsic(&p.path, &name) {
            return Ok(None);
        }
        let args: Vec<String> = c.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        Ok(vote(&name, &args))
    }
}
