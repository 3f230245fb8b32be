//! Locals bound to an unsuffixed literal, `let mut old = 0;`: Rust gives them the type their
//! uses require (the value returned as `Self`, a typed assignment, an `asm!` register), where
//! C++'s `auto` would make an `int` or a `double`. An `int` bound to an `l` (64-bit) operand
//! of `asm` is rejected by nvcc, and a narrower local would truncate what the PTX writes.
//! The function is lowered with those locals annotated, as rustc's inference reads them.

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, Lit, Pat, ReturnType, Stmt, Type};

/// The function's body with each literal-bound local given the type its uses require, or
/// `None` when no local needed one.
pub(super) fn typed(block: &Block, output: &ReturnType, compiled: &dyn Fn(&Stmt) -> bool) -> Option<Block> {
    let returned = match output {
        ReturnType::Type(_, ty) => Some((**ty).clone()),
        ReturnType::Default => None,
    };
    let mut typer = Typer {
        compiled,
        returned: returned.clone(),
        changed: false,
    };
    let mut block = block.clone();
    typer.block(&mut block, returned.as_ref());
    typer.changed.then_some(block)
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Int,
    Float,
}

struct Typer<'a> {
    compiled: &'a dyn Fn(&Stmt) -> bool,
    returned: Option<Type>,
    changed: bool,
}

impl Typer<'_> {
    /// `expected` is the type the block's value must have (it is the function's result).
    fn block(&mut self, block: &mut Block, expected: Option<&Type>) {
        let live: Vec<usize> = (0..block.stmts.len())
            .filter(|&i| (self.compiled)(&block.stmts[i]))
            .collect();
        let tail = live
            .last()
            .copied()
            .filter(|&i| matches!(block.stmts[i], Stmt::Expr(_, None)));
        for (k, &i) in live.iter().enumerate() {
            let Stmt::Local(local) = &block.stmts[i] else { continue };
            let Some((name, kind)) = literal_binding(local) else {
                continue;
            };
            // Uses end where a later `let` shadows the name.
            let rest: Vec<&Stmt> = live[k + 1..]
                .iter()
                .map(|&j| &block.stmts[j])
                .take_while(|s| !matches!(s, Stmt::Local(l) if binds(&l.pat, &name)))
                .collect();
            let tail_yields = tail.is_some_and(|t| {
                live[k + 1..].contains(&t)
                    && rest.iter().any(|s| std::ptr::eq(*s, &block.stmts[t]))
                    && matches!(&block.stmts[t], Stmt::Expr(e, None) if yields(e, &name))
            });
            let from_tail = expected.filter(|_| tail_yields).cloned();
            if let Some(ty) = from_tail.or_else(|| self.type_of_uses(&name, kind, &rest)) {
                if fits(&ty, kind) {
                    if let Stmt::Local(local) = &mut block.stmts[i] {
                        annotate(local, ty);
                        self.changed = true;
                    }
                }
            }
        }
        for &i in &live {
            let expected = if Some(i) == tail { expected } else { None };
            match &mut block.stmts[i] {
                Stmt::Expr(e, _) => self.expr(e, expected),
                Stmt::Local(local) => {
                    if let Some(init) = &mut local.init {
                        self.expr(&mut init.expr, None);
                        if let Some((_, diverge)) = &mut init.diverge {
                            self.expr(diverge, None);
                        }
                    }
                }
                Stmt::Item(_) | Stmt::Macro(_) => {}
            }
        }
    }

    fn expr(&mut self, e: &mut Expr, expected: Option<&Type>) {
        match e {
            Expr::Block(b) => self.block(&mut b.block, expected),
            Expr::Unsafe(u) => self.block(&mut u.block, expected),
            Expr::If(i) => {
                Nested(self).visit_expr_mut(&mut i.cond);
                self.block(&mut i.then_branch, expected);
                if let Some((_, other)) = &mut i.else_branch {
                    self.expr(other, expected);
                }
            }
            other => Nested(self).visit_expr_mut(other),
        }
    }

    /// The type a later use fixes: `return name`, `name = v as T`, `let y: T = name`, or the
    /// register class of an `asm!` operand (rustc's last word: its width must match).
    fn type_of_uses(&self, name: &str, kind: Kind, rest: &[&Stmt]) -> Option<Type> {
        let mut uses = Uses {
            name,
            returned: self.returned.as_ref(),
            typed: None,
            register: None,
        };
        for stmt in rest {
            uses.visit_stmt(stmt);
        }
        uses.typed
            .filter(|t| fits(t, kind))
            .or_else(|| uses.register.and_then(|class| register_type(&class, kind)))
    }
}

/// Descends to the nested blocks, whose values are not the function's.
struct Nested<'t, 'a>(&'t mut Typer<'a>);

impl VisitMut for Nested<'_, '_> {
    fn visit_block_mut(&mut self, b: &mut Block) {
        self.0.block(b, None);
    }
}

struct Uses<'a> {
    name: &'a str,
    returned: Option<&'a Type>,
    typed: Option<Type>,
    register: Option<String>,
}

impl<'ast> Visit<'ast> for Uses<'_> {
    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        if r.expr.as_deref().is_some_and(|e| yields(e, self.name)) && self.typed.is_none() {
            self.typed = self.returned.cloned();
        }
        syn::visit::visit_expr_return(self, r);
    }

    // A closure's `return` is the closure's own.
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if is_name(&a.left, self.name) && self.typed.is_none() {
            self.typed = value_type(&a.right);
        }
        syn::visit::visit_expr_assign(self, a);
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let (Pat::Type(t), Some(init)) = (&l.pat, &l.init) {
            if is_name(&init.expr, self.name) && self.typed.is_none() {
                self.typed = Some((*t.ty).clone());
            }
        }
        syn::visit::visit_local(self, l);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if m.path.segments.last().is_some_and(|s| s.ident == "asm") && self.register.is_none() {
            self.register = asm_class(&m.tokens, self.name);
        }
    }
}

/// `let [mut] name = 0;` (or `-1`, `0.0`) without a type: the name and the literal's kind.
fn literal_binding(local: &syn::Local) -> Option<(String, Kind)> {
    let Pat::Ident(p) = &local.pat else { return None };
    if p.by_ref.is_some() || p.subpat.is_some() {
        return None;
    }
    let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
    let mut value = &*init.expr;
    if let Expr::Unary(syn::ExprUnary {
        op: syn::UnOp::Neg(_),
        expr,
        ..
    }) = value
    {
        value = expr;
    }
    let Expr::Lit(lit) = value else { return None };
    let kind = match &lit.lit {
        Lit::Int(i) if i.suffix().is_empty() => Kind::Int,
        Lit::Float(f) if f.suffix().is_empty() => Kind::Float,
        _ => return None,
    };
    Some((p.ident.to_string(), kind))
}

fn binds(pat: &Pat, name: &str) -> bool {
    match pat {
        Pat::Ident(p) => p.ident == name,
        Pat::Type(t) => binds(&t.pat, name),
        _ => false,
    }
}

fn is_name(e: &Expr, name: &str) -> bool {
    match e {
        Expr::Path(p) => p.qself.is_none() && p.path.is_ident(name),
        Expr::Paren(p) => is_name(&p.expr, name),
        _ => false,
    }
}

/// Whether the expression's value is the local itself (through blocks).
fn yields(e: &Expr, name: &str) -> bool {
    let block = match e {
        Expr::Block(b) => &b.block,
        Expr::Unsafe(u) => &u.block,
        other => return is_name(other, name),
    };
    matches!(block.stmts.last(), Some(Stmt::Expr(e, None)) if yields(e, name))
}

/// The type a value states: `v as T` or a suffixed literal.
fn value_type(e: &Expr) -> Option<Type> {
    match e {
        Expr::Cast(c) => Some((*c.ty).clone()),
        Expr::Paren(p) => value_type(&p.expr),
        Expr::Lit(l) => {
            let suffix = match &l.lit {
                Lit::Int(i) => i.suffix(),
                Lit::Float(f) => f.suffix(),
                _ => "",
            };
            (!suffix.is_empty()).then(|| syn::parse_str(suffix).ok()).flatten()
        }
        _ => None,
    }
}

/// The register class of the `asm!` operand whose value is the name: `old = out(reg64) old`.
fn asm_class(tokens: &TokenStream, name: &str) -> Option<String> {
    let mut operand: Vec<TokenTree> = Vec::new();
    let mut found = None;
    let check = |operand: &[TokenTree]| {
        // [name =] direction (class) value
        let start = match operand {
            [TokenTree::Ident(_), TokenTree::Punct(p), ..] if p.as_char() == '=' => 2,
            _ => 0,
        };
        if let [TokenTree::Ident(_), TokenTree::Group(class), TokenTree::Ident(value)] =
            &operand[start.min(operand.len())..]
        {
            if *value == name && class.delimiter() == proc_macro2::Delimiter::Parenthesis {
                return Some(class.stream().to_string().trim().to_string());
            }
        }
        None
    };
    for tree in tokens.clone() {
        match &tree {
            TokenTree::Punct(p) if p.as_char() == ',' => {
                found = found.or_else(|| check(&operand));
                operand.clear();
            }
            _ => operand.push(tree),
        }
    }
    found.or_else(|| check(&operand))
}

/// The Rust type of a register's width: rustc's `i32` would not fill a 64-bit register.
fn register_type(class: &str, kind: Kind) -> Option<Type> {
    let name = match (class, kind) {
        ("reg16", Kind::Int) => "i16",
        ("reg32", Kind::Int) => "i32",
        ("reg64", Kind::Int) => "i64",
        ("freg32", Kind::Float) => "f32",
        ("freg64", Kind::Float) => "f64",
        _ => return None,
    };
    syn::parse_str(name).ok()
}

/// Whether a literal of the kind can have the type (`0` is no `f32`, `0.0` no `u64`).
fn fits(ty: &Type, kind: Kind) -> bool {
    let Type::Path(p) = ty else { return false };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    let name = last.ident.to_string();
    let float = matches!(name.as_str(), "f32" | "f64");
    let int = matches!(
        name.as_str(),
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64" | "i128" | "isize"
    );
    match kind {
        Kind::Int => !float,
        Kind::Float => !int,
    }
}

fn annotate(local: &mut syn::Local, ty: Type) {
    let pat = std::mem::replace(&mut local.pat, Pat::Verbatim(TokenStream::new()));
    local.pat = Pat::Type(syn::PatType {
        attrs: Vec::new(),
        pat: Box::new(pat),
        colon_token: Default::default(),
        ty: Box::new(ty),
    });
}
