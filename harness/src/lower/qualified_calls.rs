//! `<Vec2 as DeviceMeasure>::trait_impl_value(value)`: a trait method that takes `self`,
//! called by its qualified path, is the method call `value.trait_impl_value()`.

use super::{Context, Lowered, Scope};
use quote::ToTokens;
use syn::Expr;

impl Context<'_> {
    /// The qualified call of a method of the named type that takes `self`, as a method call.
    pub(super) fn qualified_method_call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let Some(q) = &p.qself else { return Ok(None) };
        if q.position == 0 || p.path.segments.len() != q.position + 1 || c.args.is_empty() {
            return Ok(None);
        }
        let Some(last) = p.path.segments.last() else {
            return Ok(None);
        };
        if !last.arguments.is_none() {
            return Ok(None);
        }
        let self_type = q.ty.to_token_stream().to_string();
        let takes_self = self
            .layouts
            .index
            .methods_named(&last.ident.to_string(), self.layouts.module)
            .any(|f| f.sig.receiver().is_some() && f.self_type == Some(self_type.as_str()));
        if !takes_self {
            return Ok(None);
        }
        let mut args = c.args.iter().cloned();
        let Some(receiver) = args.next() else {
            return Ok(None);
        };
        let call = syn::ExprMethodCall {
            attrs: Vec::new(),
            receiver: Box::new(receiver),
            dot_token: Default::default(),
            method: last.ident.clone(),
            turbofish: None,
            paren_token: c.paren_token,
            args: args.collect(),
        };
        self.method(&call, scope).map(Some)
    }
}
