//! Enums, with or without data: a C++ type holding the tag and the variants' payloads, the
//! variant constructors, and the patterns that test the tag and bind the payload's parts.
//!
//! Layout follows the Rust reference where it is fixed: `#[repr(C)]` is a C `int`-sized tag
//! followed by a union of the payload structs; `#[repr(u8)]` (and the other primitive
//! representations) is a union of structs that each begin with the tag; `#[repr(C, u8)]` is
//! the tag followed by the union. Without a `repr` rustc chooses the layout; the twin uses
//! the tag-then-union form with the smallest tag that holds the discriminants.

use super::{ident, Context, Lowered, Scope};
use std::fmt::Write;
use syn::{Expr, Pat};

/// How an enum is laid out.
struct Layout {
    /// C type of the tag.
    tag: &'static str,
    /// Primitive representation without `C`: every payload struct begins with the tag.
    tag_in_each: bool,
}

fn layout(def: &syn::ItemEnum, discriminants: &[i64]) -> Layout {
    let mut c = false;
    let mut primitive = None;
    for attr in def.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let _ = attr.parse_nested_meta(|meta| {
            let name = meta.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
            match name.as_str() {
                "C" => c = true,
                "u8" => primitive = Some("unsigned char"),
                "i8" => primitive = Some("signed char"),
                "u16" => primitive = Some("unsigned short"),
                "i16" => primitive = Some("short"),
                "u32" => primitive = Some("unsigned int"),
                "i32" => primitive = Some("int"),
                "u64" | "usize" => primitive = Some("unsigned long long"),
                "i64" | "isize" => primitive = Some("long long"),
                _ => {}
            }
            Ok(())
        });
    }
    let has_data = def.variants.iter().any(|v| !v.fields.is_empty());
    match (c, primitive) {
        (_, Some(tag)) => Layout {
            tag,
            tag_in_each: !c && has_data,
        },
        (true, None) => Layout {
            tag: "int",
            tag_in_each: false,
        },
        (false, None) => {
            let fits = |lo: i64, hi: i64| discriminants.iter().all(|d| (lo..=hi).contains(d));
            let tag = if fits(0, 255) {
                "unsigned char"
            } else if fits(-128, 127) {
                "signed char"
            } else if fits(0, 65535) {
                "unsigned short"
            } else {
                "int"
            };
            Layout {
                tag,
                tag_in_each: false,
            }
        }
    }
}

/// Variant `Name`'s payload member and constructor names.
fn member(variant: &str) -> String {
    format!("v_{variant}")
}
fn constructor(variant: &str) -> String {
    format!("make_{variant}")
}

/// The discriminant of each variant: explicit integers, else one past the previous.
fn discriminants(def: &syn::ItemEnum) -> Option<Vec<i64>> {
    let mut next = 0i64;
    let mut out = Vec::new();
    for v in &def.variants {
        if let Some((_, e)) = &v.discriminant {
            next = int_value(e)?;
        }
        out.push(next);
        next += 1;
    }
    Some(out)
}

fn int_value(e: &Expr) -> Option<i64> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i), ..
        }) => i.base10_parse().ok(),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => int_value(&u.expr).map(|v| -v),
        Expr::Paren(p) => int_value(&p.expr),
        _ => None,
    }
}

/// A variant a path names: the enum's C type, its definition and the variant's index.
struct Variant<'e> {
    ty: String,
    def: &'e syn::ItemEnum,
    index: usize,
}

impl Context<'_> {
    /// The C++ definition of an enum, under the C name `name`.
    pub(super) fn lower_enum(&self, def: &syn::ItemEnum, name: &str) -> Lowered<String> {
        if !def.generics.params.is_empty() {
            return self.fail(def, format!("generic enum `{}` is not lowered", def.ident));
        }
        let Some(discriminants) = discriminants(def) else {
            return self.fail(
                def,
                format!("enum `{}`: a discriminant is not an integer literal", def.ident),
            );
        };
        let layout = layout(def, &discriminants);
        let tag = layout.tag;
        let mut payloads = String::new();
        let mut constructors = String::new();
        // The first payload member: a fieldless variant of a tag-and-union layout initializes it
        // (C++17 constant evaluation wants one member of the union initialized).
        let first_payload = def
            .variants
            .iter()
            .find(|v| !v.fields.is_empty() || layout.tag_in_each)
            .map(|v| member(&v.ident.to_string()));
        let payloads_absent = first_payload.is_none();
        for (index, (variant, d)) in def.variants.iter().zip(&discriminants).enumerate() {
            let v = variant.ident.to_string();
            let mut fields = String::new();
            let mut params = Vec::new();
            let mut args = Vec::new();
            for (i, field) in variant.fields.iter().enumerate() {
                let f = field
                    .ident
                    .as_ref()
                    .map_or_else(|| format!("_{i}"), |f| ident(&f.to_string()));
                let declared = self.declarator(&field.ty, &f)?;
                // The kernel file's own structs are defined after the enums.
                if let syn::Type::Path(p) = &field.ty {
                    let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                    if self.here == self.home && self.structs.contains(&last) {
                        return self.fail(
                            field,
                            format!("enum `{}` holds `{last}` of the kernel's own file", def.ident),
                        );
                    }
                }
                let _ = write!(fields, " {declared};");
                params.push(self.declarator(&field.ty, &format!("a{i}"))?);
                args.push(format!("a{i}"));
            }
            if !variant.fields.is_empty() || layout.tag_in_each {
                let lead = if layout.tag_in_each {
                    format!(" {tag} tag;")
                } else {
                    String::new()
                };
                let _ = writeln!(payloads, "    struct {{{lead}{fields} }} {};", member(&v));
            }
            // Each member is initialized where it is declared, never assigned afterwards: a
            // `__device__` constant built from a variant is then a C++17 constant expression
            // (switching a union's active member by assignment is not).
            let payload = member(&v);
            let inits = if layout.tag_in_each {
                let values: Vec<String> = std::iter::once(d.to_string()).chain(args.iter().cloned()).collect();
                format!("{payload}{{{}}}", values.join(", "))
            } else if !variant.fields.is_empty() {
                format!("tag({d}), {payload}{{{}}}", args.join(", "))
            } else if let Some(first) = &first_payload {
                format!("tag({d}), {first}{{}}")
            } else {
                format!("tag({d})")
            };
            if payloads_absent {
                // A fieldless enum stays an aggregate: constant tables of it are written `{3}`.
                let _ = writeln!(
                    constructors,
                    "  static __host__ __device__ constexpr {name} {}() {{ {name} e{{}}; e.tag = {d}; return e; }}",
                    constructor(&v)
                );
                continue;
            }
            let selector = format!("std::integral_constant<int, {index}>");
            let lead = std::iter::once(selector.clone())
                .chain(params.iter().cloned())
                .collect::<Vec<_>>();
            let _ = writeln!(
                constructors,
                "  __host__ __device__ constexpr {name}({}) : {inits} {{}}",
                lead.join(", ")
            );
            let passed = std::iter::once(format!("{selector}{{}}"))
                .chain(args)
                .collect::<Vec<_>>();
            let _ = writeln!(
                constructors,
                "  static __host__ __device__ constexpr {name} {}({}) {{ return {name}({}); }}",
                constructor(&v),
                params.join(", "),
                passed.join(", ")
            );
        }
        if !payloads_absent {
            // Trivial, so that `{name} e{{}}` zero-fills and a `__shared__` variable may hold one.
            let _ = writeln!(constructors, "  {name}() = default;");
        }
        let mut out = String::new();
        if layout.tag_in_each {
            let _ = writeln!(out, "union {name} {{\n  {tag} tag;");
            out.push_str(&payloads.replace("\n    ", "\n  ").replacen("    ", "  ", 1));
        } else {
            let _ = writeln!(out, "struct {name} {{\n  {tag} tag;");
            if !payloads.is_empty() {
                let _ = write!(out, "  union {{\n{payloads}  }};\n");
            }
        }
        out.push_str(&constructors);
        if def.variants.iter().all(|v| v.fields.is_empty()) {
            // `e as u32` of a fieldless enum: its discriminant.
            let _ = writeln!(
                out,
                "  template <typename I, typename = typename std::enable_if<std::is_arithmetic<I>::value>::type>\n  __host__ __device__ explicit operator I() const {{ return static_cast<I>(tag); }}"
            );
        }
        if derives(def, "PartialEq") {
            // Equal when the tags are, and then the payloads of that variant.
            let mut cases = String::new();
            for (variant, d) in def.variants.iter().zip(&discriminants) {
                let v = member(&variant.ident.to_string());
                let parts: Vec<String> = variant
                    .fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        let f = f
                            .ident
                            .as_ref()
                            .map_or_else(|| format!("_{i}"), |f| ident(&f.to_string()));
                        format!("a.{v}.{f} == b.{v}.{f}")
                    })
                    .collect();
                if !parts.is_empty() {
                    let _ = write!(cases, " if (a.tag == {d}) return {};", parts.join(" && "));
                }
            }
            // Templates, so that a payload type without `==` only matters where it is used.
            let _ = writeln!(
                out,
                "  template <typename A = {name}> __host__ __device__ bool operator==(const A& b) const {{ const A& a = static_cast<const A&>(*this); if (a.tag != b.tag) return false;{cases} return true; }}\n  template <typename A = {name}> __host__ __device__ bool operator!=(const A& b) const {{ return !(*this == b); }}"
            );
        }
        out.push_str("};\n");
        Ok(out)
    }

    /// The variant a path names, when it names one of a workspace enum.
    fn variant(&self, path: &syn::Path) -> Option<Variant<'_>> {
        if path.segments.len() < 2 {
            return None;
        }
        let mut enum_path = path.clone();
        let last = enum_path.segments.pop()?.into_value().ident;
        enum_path.segments.pop_punct();
        let target = self
            .layouts
            .resolve(&enum_path)
            .or_else(|| self.nested_enum(&enum_path))?;
        let (_, def) = self.layouts.index.enum_def(&target)?;
        let index = def.variants.iter().position(|v| v.ident == last)?;
        let ty = self
            .c_type(&syn::Type::Path(syn::TypePath {
                qself: None,
                path: enum_path,
            }))
            .ok()?;
        Some(Variant { ty, def, index })
    }

    /// An enum of a module nested in this file (`mod kernels { enum Slot .. }`), named from
    /// the file's own items, which the kernel pass sees flattened.
    pub(super) fn nested_enum(&self, path: &syn::Path) -> Option<kernel_lint_analyzer::model::items::Target> {
        let name = path.get_ident()?.to_string();
        let file = self.workspace.syntax.get(self.here).copied().flatten()?;
        let mut module = self.layouts.module.clone();
        find_enum(&file.items, &name, &mut module)?;
        Some(kernel_lint_analyzer::model::items::Target::Item(module, name))
    }

    /// `E::A(x, y)`: the variant's constructor.
    pub(super) fn variant_call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let Some(v) = self.variant(&p.path) else {
            return Ok(None);
        };
        let mut args = Vec::new();
        for a in &c.args {
            args.push(self.expr(a, scope)?);
        }
        let name = v.def.variants[v.index].ident.to_string();
        Ok(Some(format!("{}::{}({})", v.ty, constructor(&name), args.join(", "))))
    }

    /// `E::B`: a variant without data.
    pub(super) fn variant_value(&self, p: &syn::ExprPath) -> Option<String> {
        let v = self.variant(&p.path)?;
        let variant = &v.def.variants[v.index];
        variant
            .fields
            .is_empty()
            .then(|| format!("{}::{}()", v.ty, constructor(&variant.ident.to_string())))
    }

    /// The discriminant of the field-less variant a path names.
    pub(super) fn variant_tag(&self, path: &syn::Path) -> Option<i64> {
        let v = self.variant(path)?;
        v.def.variants[v.index].fields.is_empty().then_some(())?;
        discriminants(v.def)?.get(v.index).copied()
    }

    /// `E::C { x: 1, y }`: the constructor, with the fields in declaration order.
    pub(super) fn variant_struct(&self, s: &syn::ExprStruct, scope: &mut Scope) -> Lowered<Option<String>> {
        let Some(v) = self.variant(&s.path) else {
            return Ok(None);
        };
        let variant = &v.def.variants[v.index];
        let mut args = Vec::new();
        for field in &variant.fields {
            let Some(name) = &field.ident else {
                return self.fail(s, "a tuple variant written with braces is not lowered");
            };
            let value = s
                .fields
                .iter()
                .find(|f| matches!(&f.member, syn::Member::Named(n) if n == name))
                .ok_or_else(|| (self.span(s), format!("field `{name}` is not given")))?;
            args.push(self.expr(&value.expr, scope)?);
        }
        Ok(Some(format!(
            "{}::{}({})",
            v.ty,
            constructor(&variant.ident.to_string()),
            args.join(", ")
        )))
    }

    /// Whether a pattern tests a workspace enum's variant or an option's `Some`/`None`.
    pub(super) fn is_variant_pattern(&self, pat: &Pat) -> bool {
        match pat {
            Pat::TupleStruct(t) => t.path.is_ident("Some") || self.variant(&t.path).is_some(),
            Pat::Path(p) => p.path.is_ident("None") || self.variant(&p.path).is_some(),
            Pat::Ident(i) => i.ident == "None" && i.subpat.is_none(),
            Pat::Struct(s) => self.variant(&s.path).is_some(),
            Pat::Or(o) => o.cases.iter().any(|c| self.is_variant_pattern(c)),
            Pat::Paren(p) => self.is_variant_pattern(&p.pat),
            _ => false,
        }
    }

    /// The tests and bindings of `pat` against the C++ place `place`; bindings refer to the
    /// place (pointers) when `by_ref`, as Rust's default binding mode does through a reference.
    fn pattern_parts(
        &self,
        pat: &Pat,
        place: &str,
        by_ref: bool,
        tests: &mut Vec<String>,
        binds: &mut Vec<(String, String, bool)>,
    ) -> Lowered<()> {
        match pat {
            Pat::Wild(_) | Pat::Rest(_) => Ok(()),
            Pat::Paren(p) => self.pattern_parts(&p.pat, place, by_ref, tests, binds),
            Pat::Ident(i) if i.ident == "None" && i.subpat.is_none() => {
                tests.push(format!("!({place}).some"));
                Ok(())
            }
            Pat::Ident(i) => {
                if let Some((_, sub)) = &i.subpat {
                    self.pattern_parts(sub, place, by_ref, tests, binds)?;
                }
                binds.push((i.ident.to_string(), place.to_string(), by_ref || i.by_ref.is_some()));
                Ok(())
            }
            Pat::Reference(r) => self.pattern_parts(&r.pat, place, false, tests, binds),
            // `Some((node, _))`: the tuple's fields by position, a trailing `..` skipping the rest.
            Pat::Tuple(t) => {
                for (i, elem) in t.elems.iter().enumerate() {
                    if matches!(elem, Pat::Rest(_)) {
                        if i + 1 != t.elems.len() {
                            return self.fail(t, "a tuple pattern with `..` before its last field");
                        }
                        break;
                    }
                    self.pattern_parts(elem, &format!("({place})._{i}"), by_ref, tests, binds)?;
                }
                Ok(())
            }
            Pat::Path(p) if p.path.is_ident("None") => {
                tests.push(format!("!({place}).some"));
                Ok(())
            }
            Pat::TupleStruct(t) if t.path.is_ident("Some") && t.elems.len() == 1 => {
                tests.push(format!("({place}).some"));
                self.pattern_parts(&t.elems[0], &format!("({place}).value"), by_ref, tests, binds)
            }
            Pat::Path(p) => {
                let Some(v) = self.variant(&p.path) else {
                    return self.fail(p, "this path pattern is not lowered");
                };
                tests.push(self.tag_test(&v, place)?);
                Ok(())
            }
            Pat::TupleStruct(t) => {
                let Some(v) = self.variant(&t.path) else {
                    return self.fail(t, "this tuple-struct pattern is not lowered");
                };
                tests.push(self.tag_test(&v, place)?);
                let m = member(&v.def.variants[v.index].ident.to_string());
                for (i, elem) in t.elems.iter().enumerate() {
                    if matches!(elem, Pat::Rest(_)) {
                        break;
                    }
                    self.pattern_parts(elem, &format!("({place}).{m}._{i}"), by_ref, tests, binds)?;
                }
                Ok(())
            }
            Pat::Struct(s) => {
                let Some(v) = self.variant(&s.path) else {
                    return self.fail(s, "this struct pattern is not lowered");
                };
                tests.push(self.tag_test(&v, place)?);
                let m = member(&v.def.variants[v.index].ident.to_string());
                for field in &s.fields {
                    let f = match &field.member {
                        syn::Member::Named(n) => ident(&n.to_string()),
                        syn::Member::Unnamed(i) => format!("_{}", i.index),
                    };
                    self.pattern_parts(&field.pat, &format!("({place}).{m}.{f}"), by_ref, tests, binds)?;
                }
                Ok(())
            }
            Pat::Or(o) => {
                // Each name is bound from the alternative that matched.
                let mut alternatives = Vec::new();
                for case in &o.cases {
                    let (mut t, mut b) = (Vec::new(), Vec::new());
                    self.pattern_parts(case, place, by_ref, &mut t, &mut b)?;
                    alternatives.push((conjunction(&t), b));
                }
                tests.push(format!(
                    "({})",
                    alternatives
                        .iter()
                        .map(|(t, _)| t.clone())
                        .collect::<Vec<_>>()
                        .join(" || ")
                ));
                let Some((_, first)) = alternatives.first() else {
                    return Ok(());
                };
                for (k, (name, _, reference)) in first.iter().enumerate() {
                    let mut chosen = String::new();
                    for (test, b) in alternatives.iter().rev() {
                        let Some((_, p, _)) = b.iter().find(|(n, _, _)| n == name).or(b.get(k)) else {
                            return self.fail(o, "alternatives that bind different names");
                        };
                        chosen = if chosen.is_empty() {
                            p.clone()
                        } else {
                            format!("({test}) ? ({p}) : ({chosen})")
                        };
                    }
                    binds.push((name.clone(), chosen, *reference));
                }
                Ok(())
            }
            Pat::Lit(_) | Pat::Range(_) => {
                if let Some(t) = self.pattern_condition(pat, place)? {
                    tests.push(t);
                }
                Ok(())
            }
            other => self.fail(other, "this pattern is not lowered in an enum's `match`"),
        }
    }

    fn tag_test(&self, v: &Variant<'_>, place: &str) -> Lowered<String> {
        let Some(d) = discriminants(v.def) else {
            return self.fail(v.def, "a discriminant is not an integer literal");
        };
        Ok(format!("({place}).tag == {}", d[v.index]))
    }

    /// The scrutinee as a C++ place, and whether Rust reaches it through a reference.
    fn variant_scrutinee(&self, e: &Expr, scope: &mut Scope) -> Lowered<(String, bool)> {
        match e {
            Expr::Paren(p) => self.variant_scrutinee(&p.expr, scope),
            Expr::Reference(r) => Ok((self.expr(&r.expr, scope)?, true)),
            Expr::Path(p)
                if p.path
                    .get_ident()
                    .is_some_and(|i| scope.references.contains(&scope.lookup(&i.to_string()))) =>
            {
                Ok((format!("(*{})", self.expr(e, scope)?), true))
            }
            _ => Ok((self.expr(e, scope)?, false)),
        }
    }

    /// Declarations of the bindings, each name bound in the current scope.
    fn declare(&self, binds: &[(String, String, bool)], scope: &mut Scope) -> String {
        let mut out = String::new();
        for (name, place, reference) in binds {
            let c = scope.bind(name);
            if *reference {
                scope.references.insert(c.clone());
                let _ = writeln!(out, "auto {c} = &({place});");
            } else {
                let _ = writeln!(out, "auto {c} = {place};");
            }
        }
        out
    }

    /// `match` on an enum or option value as a statement: the scrutinee once, by reference,
    /// then an `if` chain whose arms bind the payload's parts.
    pub(super) fn enum_match_stmt(&self, m: &syn::ExprMatch, scope: &mut Scope) -> Lowered<Option<String>> {
        if !m.arms.iter().any(|a| self.is_variant_pattern(&a.pat)) {
            return Ok(None);
        }
        let (place, by_ref) = self.variant_scrutinee(&m.expr, scope)?;
        scope.shared_counter += 1;
        let whole = format!("kl_match_{}", scope.shared_counter);
        let mut out = format!("{{\nauto&& {whole} = {place};\n");
        let mut k = 0;
        for arm in &m.arms {
            let (mut tests, mut binds) = (Vec::new(), Vec::new());
            self.pattern_parts(&arm.pat, &whole, by_ref, &mut tests, &mut binds)?;
            scope.names.push(Default::default());
            let declared = self.declare(&binds, scope);
            let guard = arm.guard.as_ref().map(|(_, g)| self.expr(g, scope));
            let body = if super::expr::is_unreachable(&arm.body) {
                Ok("{\n}\n".to_string())
            } else {
                self.block(&super::arm_blocks::arm_block(&arm.body), scope)
            };
            scope.names.pop();
            let body = body?;
            if let Some(guard) = guard {
                let guard = guard?;
                let inline = declared.replace('\n', " ");
                tests.push(format!("[&]() -> bool {{ {inline}return {guard}; }}()"));
            }
            let keyword = if k == 0 { "if" } else { "else if" };
            k += 1;
            if tests.is_empty() {
                let _ = write!(out, "{}{{\n{declared}{body}}}\n", if k == 1 { "" } else { "else " });
                break;
            }
            let _ = write!(out, "{keyword} ({}) {{\n{declared}{body}}}\n", conjunction(&tests));
        }
        out.push_str("}\n");
        Ok(Some(out))
    }

    /// `match` on an enum or option value as a value: conditionals whose arms bind the
    /// payload's parts in a lambda called at once.
    pub(super) fn enum_match_value(&self, m: &syn::ExprMatch, scope: &mut Scope) -> Lowered<Option<String>> {
        if !m.arms.iter().any(|a| self.is_variant_pattern(&a.pat)) {
            return Ok(None);
        }
        let (place, by_ref) = self.variant_scrutinee(&m.expr, scope)?;
        scope.shared_counter += 1;
        let whole = format!("kl_match_{}", scope.shared_counter);
        let mut arms = Vec::new();
        for arm in &m.arms {
            if super::expr::is_unreachable(&arm.body) {
                continue;
            }
            let (mut tests, mut binds) = (Vec::new(), Vec::new());
            self.pattern_parts(&arm.pat, &whole, by_ref, &mut tests, &mut binds)?;
            scope.names.push(Default::default());
            let declared = self.declare(&binds, scope).replace('\n', " ");
            let guard = arm.guard.as_ref().map(|(_, g)| self.expr(g, scope));
            let value = self.expr(&arm.body, scope);
            scope.names.pop();
            if let Some(guard) = guard {
                tests.push(format!("[&]() -> bool {{ {declared}return {}; }}()", guard?));
            }
            let value = if declared.is_empty() {
                value?
            } else {
                format!("[&]() {{ {declared}return {}; }}()", value?)
            };
            arms.push((tests, value));
        }
        let Some((_, last)) = arms.pop() else {
            return self.fail(m, "`match` without a reachable arm");
        };
        let mut chain = last;
        for (tests, value) in arms.into_iter().rev() {
            chain = format!("({}) ? ({value}) : ({chain})", conjunction(&tests));
        }
        Ok(Some(format!("[&]() {{ auto&& {whole} = {place}; return {chain}; }}()")))
    }

    /// `if let Variant(x) = e` of an enum, or `if let Some(x) = opt` of an option value.
    pub(super) fn enum_if_let(&self, l: &syn::ExprLet, i: &syn::ExprIf, scope: &mut Scope) -> Lowered<Option<String>> {
        if !self.is_variant_pattern(&l.pat) {
            return Ok(None);
        }
        let (place, by_ref) = self.variant_scrutinee(&l.expr, scope)?;
        scope.shared_counter += 1;
        let whole = format!("kl_let_{}", scope.shared_counter);
        let (mut tests, mut binds) = (Vec::new(), Vec::new());
        self.pattern_parts(&l.pat, &whole, by_ref, &mut tests, &mut binds)?;
        let payload = self.some_payload(l, scope);
        scope.names.push(Default::default());
        let declared = self.declare(&binds, scope);
        self.note_some_payload(payload, scope);
        let body = self.block(&i.then_branch, scope);
        scope.names.pop();
        let mut out = format!(
            "{{\nauto&& {whole} = {place};\nif ({}) {{\n{declared}{}}}\n",
            conjunction(&tests),
            body?
        );
        if let Some((_, else_branch)) = &i.else_branch {
            out.push_str("else ");
            out.push_str(&self.expr_stmt(else_branch, scope)?);
        }
        out.push_str("}\n");
        Ok(Some(out))
    }

    /// `let Variant(x) = e else { .. };`: the `else` block when the tag differs, then the
    /// bindings in the enclosing scope.
    pub(super) fn enum_let_else(&self, local: &syn::Local, scope: &mut Scope) -> Lowered<Option<String>> {
        let Some(init) = &local.init else { return Ok(None) };
        let Some((_, diverge)) = &init.diverge else {
            return Ok(None);
        };
        // `let Some(x) = s.get_mut(i) else` of a slice is the bounds check lowered elsewhere.
        let option = matches!(&local.pat, Pat::TupleStruct(t) if t.path.is_ident("Some"));
        if option || !self.is_variant_pattern(&local.pat) {
            return Ok(None);
        }
        let (place, by_ref) = self.variant_scrutinee(&init.expr, scope)?;
        scope.shared_counter += 1;
        let whole = format!("kl_let_{}", scope.shared_counter);
        let (mut tests, mut binds) = (Vec::new(), Vec::new());
        self.pattern_parts(&local.pat, &whole, by_ref, &mut tests, &mut binds)?;
        let otherwise = self.expr_stmt(diverge, scope)?;
        let declared = self.declare(&binds, scope);
        Ok(Some(format!(
            "auto&& {whole} = {place};\nif (!({})) {otherwise}{declared}",
            conjunction(&tests)
        )))
    }

    /// Whether an `if` condition is `let` of a variant pattern.
    pub(super) fn is_variant_let(&self, cond: &Expr) -> bool {
        matches!(cond, Expr::Let(l) if self.is_variant_pattern(&l.pat))
    }

    /// `if let P = e { a } else { b }` as a value: the `match` with arms `P => a, _ => b`.
    pub(super) fn enum_if_let_value(&self, i: &syn::ExprIf, scope: &mut Scope) -> Lowered<String> {
        let Expr::Let(l) = &*i.cond else {
            return self.fail(i, "`if let` without `let`");
        };
        let Some((_, otherwise)) = &i.else_branch else {
            return self.fail(i, "`if let` used as a value without `else`");
        };
        let block = |b: syn::Block| {
            Box::new(Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: b,
            }))
        };
        let arm = |pat: Pat, body: Box<Expr>| syn::Arm {
            attrs: Vec::new(),
            pat,
            guard: None,
            fat_arrow_token: Default::default(),
            body,
            comma: None,
        };
        let m = syn::ExprMatch {
            attrs: Vec::new(),
            match_token: Default::default(),
            expr: l.expr.clone(),
            brace_token: Default::default(),
            arms: vec![
                arm((*l.pat).clone(), block(i.then_branch.clone())),
                arm(
                    Pat::Wild(syn::PatWild {
                        attrs: Vec::new(),
                        underscore_token: Default::default(),
                    }),
                    otherwise.clone(),
                ),
            ],
        };
        match self.enum_match_value(&m, scope)? {
            Some(v) => Ok(v),
            None => self.fail(i, "`if let` used as a value is not lowered"),
        }
    }

    /// `matches!(e, pattern)` (with an optional `if` guard on no bindings).
    pub(super) fn matches_macro(&self, mac: &syn::Macro, scope: &mut Scope) -> Lowered<Option<String>> {
        if !mac.path.is_ident("matches") {
            return Ok(None);
        }
        let parsed = mac.parse_body_with(|input: syn::parse::ParseStream| {
            let e: Expr = input.parse()?;
            input.parse::<syn::Token![,]>()?;
            let pat = Pat::parse_multi_with_leading_vert(input)?;
            let guard = if input.peek(syn::Token![if]) {
                input.parse::<syn::Token![if]>()?;
                Some(input.parse::<Expr>()?)
            } else {
                None
            };
            let _ = input.parse::<Option<syn::Token![,]>>()?;
            Ok((e, pat, guard))
        });
        let Ok((e, pat, guard)) = parsed else {
            return self.fail(mac, "`matches!` not understood");
        };
        let (place, by_ref) = self.variant_scrutinee(&e, scope)?;
        let (mut tests, mut binds) = (Vec::new(), Vec::new());
        self.pattern_parts(&pat, "kl_m", by_ref, &mut tests, &mut binds)?;
        scope.names.push(Default::default());
        let declared = self.declare(&binds, scope).replace('\n', " ");
        let guard = guard.map(|g| self.expr(&g, scope));
        scope.names.pop();
        if let Some(g) = guard {
            tests.push(format!("[&]() -> bool {{ {declared}return {}; }}()", g?));
        }
        Ok(Some(format!(
            "[&](const auto& kl_m) -> bool {{ return {}; }}({place})",
            conjunction(&tests)
        )))
    }
}

/// Appends to `module` the chain of inline modules that defines enum `name`.
fn find_enum(items: &[syn::Item], name: &str, module: &mut Vec<String>) -> Option<()> {
    if items.iter().any(|i| matches!(i, syn::Item::Enum(e) if e.ident == name)) {
        return Some(());
    }
    for item in items {
        if let syn::Item::Mod(m) = item {
            if let Some((_, inner)) = &m.content {
                module.push(m.ident.to_string());
                if find_enum(inner, name, module).is_some() {
                    return Some(());
                }
                module.pop();
            }
        }
    }
    None
}

fn conjunction(tests: &[String]) -> String {
    if tests.is_empty() {
        "true".to_string()
    } else {
        tests.join(" && ")
    }
}

/// Whether the item derives `name`.
fn derives(def: &syn::ItemEnum, name: &str) -> bool {
    def.attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| quote::ToTokens::to_token_stream(a).to_string().contains(name))
}
