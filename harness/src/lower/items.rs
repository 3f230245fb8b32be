//! The items a kernel needs from anywhere in the workspace: structs, type aliases, constants,
//! statics, free functions and inherent methods of other modules and crates, resolved through
//! the analyzer's item index and lowered once each, dependencies first.
//!
//! Items of other files go before the kernel file's own items; methods of the kernel file's
//! own types go after its types and before its helpers, by prototype.

use super::{ident, oxide, Context, Lowered, Scope};
use kernel_lint_analyzer::model::items::{FunctionRef, Target};
use kernel_lint_analyzer::model::layout::instantiate;
use kernel_lint_analyzer::{ModulePath, SourceFile};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use syn::visit_mut::VisitMut;
use syn::{Expr, Type};

/// Every parsed file of the run with the module it is.
pub struct Workspace<'a> {
    /// The files, in input order.
    pub files: &'a [SourceFile],
    /// Each file's syntax, when it parsed.
    pub syntax: Vec<Option<&'a syn::File>>,
    /// Each file's module path.
    pub modules: &'a [ModulePath],
}

impl Workspace<'_> {
    /// The file a module is written in: the file whose module is the longest prefix of it
    /// (inline modules live in their parent's file).
    pub(super) fn owner(&self, module: &ModulePath) -> Option<usize> {
        self.modules
            .iter()
            .enumerate()
            .filter(|(_, m)| module.starts_with(m))
            .max_by_key(|(i, m)| (m.len(), std::cmp::Reverse(*i)))
            .map(|(i, _)| i)
    }
}

/// An item as the set knows it: its kind, defining module, `impl` type and name.
type Key = (&'static str, ModulePath, String);

/// Where an item's code goes.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Area {
    /// Before the kernel file's own items: the item lives in another file.
    Early,
    /// After the kernel file's types, before its helpers: a method of the kernel file.
    Late,
}

/// The items lowered for the kernels of one file, in dependency order.
#[derive(Default)]
pub(super) struct ItemSet {
    state: RefCell<State>,
}

#[derive(Default)]
struct State {
    /// The C name of each item lowered, or why it is not.
    done: HashMap<Key, Result<String, String>>,
    /// Items being lowered: a reference back to one is recursion.
    pending: HashSet<Key>,
    /// The items being lowered with their C names, innermost last.
    lowering: Vec<(Key, String)>,
    /// C names in use in the namespace.
    taken: HashSet<String>,
    /// Code of items of other files, dependencies first.
    early: String,
    /// Prototypes and definitions of the kernel file's methods.
    late_prototypes: String,
    late: String,
    late_keys: Vec<Key>,
    /// Structs of the kernel file defined early, for items of other files: its own pass
    /// leaves them out.
    hoisted: HashSet<String>,
}

impl ItemSet {
    /// A set whose names avoid those the kernel file defines itself.
    pub(super) fn new(taken: impl IntoIterator<Item = String>) -> ItemSet {
        let set = ItemSet::default();
        set.state.borrow_mut().taken.extend(taken);
        set
    }

    /// Code for before the kernel file's items.
    pub(super) fn early(&self) -> String {
        self.state.borrow().early.clone()
    }

    /// Prototypes and definitions for after the kernel file's types.
    pub(super) fn late(&self) -> (String, String) {
        let state = self.state.borrow();
        (state.late_prototypes.clone(), state.late.clone())
    }

    /// The kernel file's structs already defined with the items of other files.
    pub(super) fn hoisted(&self) -> HashSet<String> {
        self.state.borrow().hoisted.clone()
    }

    /// Forgets the kernel file's methods: a helper of the file they may call no longer lowers.
    pub(super) fn reset_late(&self) {
        let mut state = self.state.borrow_mut();
        for key in std::mem::take(&mut state.late_keys) {
            // Its name is free again: lowered anew, it keeps it.
            if let Some(Ok(name)) = state.done.remove(&key) {
                state.taken.remove(&name);
            }
        }
        state.late_prototypes.clear();
        state.late.clear();
    }

    fn name_for(&self, wanted: &str) -> String {
        let mut state = self.state.borrow_mut();
        let mut name = ident(wanted);
        let mut n = 1;
        while state.taken.contains(&name) {
            n += 1;
            name = format!("{}_{n}", ident(wanted));
        }
        state.taken.insert(name.clone());
        name
    }
}

/// Replaces `Self` in a method by the name of its type.
struct SelfType<'a>(&'a str);

impl VisitMut for SelfType<'_> {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if let Some(first) = path.segments.first_mut() {
            if first.ident == "Self" {
                first.ident = syn::Ident::new(self.0, first.ident.span());
            }
        }
        syn::visit_mut::visit_path_mut(self, path);
    }

    // `vector![self.0 & Self::MASK, ..]`: a macro's tokens name the type too.
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        m.tokens = self_in_tokens(m.tokens.clone(), self.0);
        syn::visit_mut::visit_macro_mut(self, m);
    }
}

/// The tokens with each `Self` replaced by `ty`.
fn self_in_tokens(tokens: proc_macro2::TokenStream, ty: &str) -> proc_macro2::TokenStream {
    use proc_macro2::{Group, TokenTree};
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Ident(i) if i == "Self" => TokenTree::Ident(syn::Ident::new(ty, i.span())),
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), self_in_tokens(g.stream(), ty));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            other => other,
        })
        .collect()
}

impl<'a> Context<'a> {
    /// The context to lower code written in `module`: this one if the module is in this file,
    /// else one for the file that holds it.
    pub(super) fn within(&self, module: &'a ModulePath) -> Option<Context<'a>> {
        let owner = self.workspace.owner(module)?;
        if owner == self.here {
            let mut inner = self.clone();
            inner.layouts = self.layouts.at(module);
            return Some(inner);
        }
        Some(Context {
            file: &self.workspace.files[owner],
            layouts: self.layouts.at(module),
            helpers_failed: HashMap::new(),
            helpers: HashSet::new(),
            helper_slices: HashMap::new(),
            instances: HashMap::new(),
            kernel_functions: HashMap::new(),
            template_types: HashMap::new(),
            structs: HashSet::new(),
            consts: HashSet::new(),
            undefined: HashSet::new(),
            oxide: self
                .workspace
                .syntax
                .get(owner)
                .copied()
                .flatten()
                .map_or_else(oxide::OxideFile::default, oxide::OxideFile::new),
            ffi: super::device_ffi::DeviceFfi::default(),
            items: self.items,
            workspace: self.workspace,
            here: owner,
            home: self.home,
            // Code of the kernel's file reached from another file's item goes before it.
            hoisting: owner == self.home,
        })
    }

    /// Where an item of `module` goes, or `None` when the kernel file's own pass defines it.
    pub(super) fn area(&self, module: &ModulePath, kind: &str) -> Option<Area> {
        let owner = self.workspace.owner(module)?;
        match (owner == self.home, kind) {
            (false, _) => Some(Area::Early),
            (true, "method" | "function") if !self.foreign() => Some(Area::Late),
            (true, _) => None,
        }
    }

    /// Whether the code being lowered goes before the kernel file's items: it is another
    /// file's, or the kernel file's reached from another file's.
    pub(super) fn foreign(&self) -> bool {
        self.here != self.home || self.hoisting
    }

    /// Lowers an item once; `lower` returns its code given its C name.
    pub(super) fn require(
        &self,
        node: &impl quote::ToTokens,
        key: Key,
        area: Area,
        lower: impl FnOnce(&str) -> Lowered<(String, String)>,
    ) -> Lowered<String> {
        self.require_as(node, key, area, None, lower)
    }

    /// `require` for an item whose C name is fixed: a struct of the kernel file defined early
    /// keeps the name its own code uses.
    fn require_as(
        &self,
        node: &impl quote::ToTokens,
        key: Key,
        area: Area,
        fixed: Option<&str>,
        lower: impl FnOnce(&str) -> Lowered<(String, String)>,
    ) -> Lowered<String> {
        let what = format!("{} `{}`", key.0.trim_start_matches("early "), key.2);
        if let Some(done) = self.items.state.borrow().done.get(&key) {
            return done
                .clone()
                .map_err(|reason| (self.span(node), format!("{what} is not lowered: {reason}")));
        }
        if self.items.state.borrow().pending.contains(&key) {
            // A function calling itself: CUDA runs device recursion, and C++ declares a
            // function's name before its body. Mutual recursion would need a prototype first.
            let innermost = self.items.state.borrow().lowering.last().cloned();
            if let Some((last, name)) = innermost {
                if last == key && matches!(key.0, "function" | "method" | "early function" | "early method") {
                    return Ok(name);
                }
            }
            return self.fail(node, format!("{what} is recursive: recursion is not lowered"));
        }
        let name = match fixed {
            Some(name) => name.to_string(),
            None => self.items.name_for(&key.2.replace("::", "_")),
        };
        self.items.state.borrow_mut().pending.insert(key.clone());
        self.items.state.borrow_mut().lowering.push((key.clone(), name.clone()));
        let outcome = lower(&name);
        let mut state = self.items.state.borrow_mut();
        state.pending.remove(&key);
        state.lowering.pop();
        let result = match outcome {
            Ok((prototype, code)) => {
                match area {
                    Area::Early => {
                        state.early.push_str(&prototype);
                        state.early.push_str(&code);
                    }
                    Area::Late => {
                        state.late_prototypes.push_str(&prototype);
                        state.late.push_str(&code);
                    }
                }
                Ok(name)
            }
            Err((_, reason)) => {
                if fixed.is_none() {
                    state.taken.remove(&name);
                }
                Err(reason)
            }
        };
        if area == Area::Late {
            state.late_keys.push(key.clone());
        }
        state.done.insert(key, result.clone());
        result.map_err(|reason| (self.span(node), format!("{what} is not lowered: {reason}")))
    }

    /// The C type a path names when it is an alias anywhere or a struct of another file.
    pub(super) fn item_type(&self, ty: &Type, path: &syn::Path) -> Lowered<Option<String>> {
        let Some(target) = self.layouts.resolve(path).or_else(|| self.nested_enum(path)) else {
            return Ok(None);
        };
        let index = self.layouts.index;
        if let Some((module, alias)) = index.alias(&target) {
            let arguments = path.segments.last().map(|s| s.arguments.clone()).unwrap_or_default();
            let aliased = instantiate(alias, &arguments);
            let Some(inner) = self.within(module) else {
                return Ok(None);
            };
            return inner.c_type(&aliased).map(Some).map_err(|(_, reason)| {
                (
                    self.span(ty),
                    format!("alias `{}` is not lowered: {reason}", alias.ident),
                )
            });
        }
        if let Some((module, def)) = index.enum_def(&target) {
            let area = self.area(module, "struct").unwrap_or(Area::Early);
            let key = ("enum", module.clone(), def.ident.to_string());
            return self
                .require(ty, key, area, |name| {
                    let inner = self
                        .within(module)
                        .ok_or_else(|| (self.span(ty), "no file".to_string()))?;
                    Ok((String::new(), inner.lower_enum(def, name)?))
                })
                .map(Some);
        }
        let Some((module, def)) = index.struct_def(&target) else {
            return Ok(None);
        };
        let Some(area) = self.area(module, "struct") else {
            if self.foreign() {
                return self.hoist_struct(ty, module, def).map(Some);
            }
            return Ok(None);
        };
        // Lifetimes leave no trace in the layout.
        if def
            .generics
            .params
            .iter()
            .any(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
        {
            return self.foreign_struct_instance(ty, module, def, area).map(Some);
        }
        let key = ("struct", module.clone(), def.ident.to_string());
        self.require(ty, key, area, |name| {
            let inner = self
                .within(module)
                .ok_or_else(|| (self.span(ty), "no file".to_string()))?;
            let mut renamed = def.clone();
            renamed.ident = syn::Ident::new(name, def.ident.span());
            Ok((String::new(), inner.lower_struct(&renamed)?))
        })
        .map(Some)
    }

    /// A constant or static a path names, when it is one of another file (or an associated
    /// integer constant, as its value); `None` leaves the path to the file's own items.
    pub(super) fn item_value(&self, p: &syn::ExprPath, scope: &Scope) -> Lowered<Option<String>> {
        if let Some(name) = p.path.get_ident() {
            if scope.is_bound(&name.to_string()) {
                return Ok(None);
            }
        }
        let Some(target) = self.layouts.resolve(&p.path) else {
            return Ok(None);
        };
        let index = self.layouts.index;
        if let Target::Associated(_, ty, _) = &target {
            if let Some(v) = self.layouts.const_named(&p.path) {
                return Ok(Some(format!("{v}ll")));
            }
            return self.associated_value(p, &target, ty);
        }
        let Target::Item(module, name) = &target else {
            return Ok(None);
        };
        let is_const = index.const_expr(&target).is_some();
        let static_item = index.static_item(&target);
        if !is_const && static_item.is_none() {
            return Ok(None);
        }
        let Some(area) = self.area(module, "const") else {
            if self.foreign() {
                return self.fail(p, format!("`{name}` of the kernel's own file is used by another file"));
            }
            return Ok(None);
        };
        let key = (if is_const { "const" } else { "static" }, module.clone(), name.clone());
        let item = self.const_item(module, name);
        self.require(p, key, area, |c_name| {
            let inner = self
                .within(module)
                .ok_or_else(|| (self.span(p), "no file".to_string()))?;
            match (item, static_item) {
                (Some(c), _) => Ok((String::new(), inner.const_definition(c_name, &c.ty, &c.expr)?)),
                (None, Some((_, s))) => Ok((String::new(), inner.static_definition(c_name, s)?)),
                (None, None) => self.fail(p, "constant without a definition"),
            }
        })
        .map(Some)
    }

    /// A struct of the kernel's file that an item of another file names: defined with the
    /// early items, under its own name, and left out of the kernel file's own types.
    fn hoist_struct(&self, ty: &Type, module: &'a ModulePath, def: &syn::ItemStruct) -> Lowered<String> {
        if def
            .generics
            .params
            .iter()
            .any(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
        {
            return self.fail(ty, format!("generic struct `{}` is not lowered", def.ident));
        }
        let name = def.ident.to_string();
        let key = ("struct", module.clone(), name.clone());
        let lowered = self.require_as(ty, key, Area::Early, Some(&name), |_| {
            let inner = self
                .within(module)
                .ok_or_else(|| (self.span(ty), "no file".to_string()))?;
            Ok((String::new(), inner.lower_struct(def)?))
        })?;
        self.items.state.borrow_mut().hoisted.insert(name);
        Ok(lowered)
    }

    /// An associated constant of another type than an integer (`HaloState::EMPTY`): its
    /// initializer, lowered where it is written; a constant's initializer has no effects.
    fn associated_value(&self, p: &syn::ExprPath, target: &Target, ty: &str) -> Lowered<Option<String>> {
        let Some((module, expr)) = self.layouts.index.const_expr(target) else {
            return Ok(None);
        };
        if super::const_asserts::is_const_assertion(expr) {
            return Ok(Some("kl::unit{}".to_string()));
        }
        let mut expr = expr.clone();
        SelfType(ty).visit_expr_mut(&mut expr);
        let inner = self
            .within(module)
            .ok_or_else(|| (self.span(p), "no file".to_string()))?;
        let value = inner.expr(&expr, &mut Scope::default()).map_err(|(_, reason)| {
            (
                self.span(p),
                format!("constant `{}` is not lowered: {reason}", self.text(p)),
            )
        })?;
        Ok(Some(format!("({value})")))
    }

    /// The `const` item itself (with its type), from the file that defines it.
    fn const_item(&self, module: &ModulePath, name: &str) -> Option<syn::ItemConst> {
        let owner = self.workspace.owner(module)?;
        let syntax = self.workspace.syntax.get(owner).copied().flatten()?;
        let inline = &module[self.workspace.modules[owner].len()..];
        let compiled = |attrs: &[syn::Attribute]| self.layouts.index.cfg_active(module, attrs);
        find_const(&syntax.items, inline, name, &compiled)
    }

    /// `constexpr` for scalars, a `__device__` table for arrays: device code indexes it.
    pub(super) fn const_definition(&self, name: &str, ty: &Type, value: &Expr) -> Lowered<String> {
        let decl = self.declarator(ty, name)?;
        if let Expr::Array(a) = value {
            let elems = a
                .elems
                .iter()
                .map(|e| self.expr(e, &mut Scope::default()))
                .collect::<Lowered<Vec<_>>>()?;
            return Ok(format!("__device__ const {decl} = {{{}}};\n", elems.join(", ")));
        }
        if let (Some(v), false) = (self.layouts.const_value(value), matches!(ty, Type::Array(_))) {
            return Ok(format!("[[maybe_unused]] constexpr {decl} = {v}ll;\n"));
        }
        let value = self.expr(value, &mut Scope::default())?;
        Ok(format!("[[maybe_unused]] constexpr {decl} = {value};\n"))
    }

    pub(super) fn static_definition(&self, name: &str, s: &syn::ItemStatic) -> Lowered<String> {
        let mut renamed = s.clone();
        renamed.ident = syn::Ident::new(name, s.ident.span());
        let decl = self.static_decl(&renamed)?;
        let init = match &*s.expr {
            Expr::Array(a) => Some(
                a.elems
                    .iter()
                    .map(|e| self.expr(e, &mut Scope::default()))
                    .collect::<Lowered<Vec<_>>>()?
                    .join(", "),
            )
            .map(|v| format!("{{{v}}}")),
            // A number or the address of another static: a constant initializer, which a
            // `__device__` variable takes (it takes no dynamic one).
            e if constant_initializer(e) => Some(self.expr(e, &mut Scope::default())?),
            // Device memory starts zeroed; other initializers are left to the kernels.
            _ => None,
        };
        let decl = decl.trim_end_matches(';');
        Ok(match init {
            Some(init) if matches!(s.mutability, syn::StaticMutability::None) && !decl.contains(" const ") => {
                format!("{decl} = {init};\n").replacen("__device__ ", "__device__ const ", 1)
            }
            Some(init) => format!("{decl} = {init};\n"),
            None => format!("{decl};\n"),
        })
    }

    /// A call of a function, associated function or tuple struct of any module.
    pub(super) fn item_call(
        &self,
        c: &syn::ExprCall,
        path: &syn::Path,
        args: &[String],
        scope: &mut Scope,
    ) -> Lowered<Option<String>> {
        let Some(target) = self.layouts.resolve(path) else {
            return self.file_tuple_struct(path, args);
        };
        let index = self.layouts.index;
        if index.is_tuple_struct(&target) {
            let ty = Type::Path(syn::TypePath {
                qself: None,
                path: path.clone(),
            });
            return Ok(Some(format!("{}{{{}}}", self.c_type(&ty)?, args.join(", "))));
        }
        let Some(function) = index.function(&target) else {
            return Ok(None);
        };
        let mut constants = Vec::new();
        if let Some(self_type) = function.self_type {
            if let Some(reason) = super::const_asserts::const_generic_owner(path) {
                let syntax = self.workspace.syntax.get(function.file).copied().flatten();
                match syntax.and_then(|f| super::const_impls::impl_constants(&f.items, path, self_type, &function.name))
                {
                    Some(found) => constants = found,
                    None => return self.fail(c, reason),
                }
            }
        }
        let kind = if function.self_type.is_some() {
            "method"
        } else {
            "function"
        };
        let Some(area) = self.area(function.module, kind) else {
            if self.foreign() {
                return self.fail(
                    c,
                    format!("`{}` of the kernel's own file is used by another file", function.name),
                );
            }
            return Ok(None);
        };
        if area == Area::Late && function.self_type.is_none() {
            // A free function of the kernel's file: its own pass lowers it.
            scope.reference_call = returns_reference(function.sig);
            return Ok(None);
        }
        let name = self.function_item_with(c, &function, area, &constants)?;
        scope.reference_call = returns_reference(function.sig);
        let mut with_lengths = Vec::new();
        let slice_params = self.slice_parameters(path);
        for (i, (arg, text)) in c.args.iter().zip(args).enumerate() {
            let slice = matches!(arg, Expr::Path(ap) if ap.path.get_ident().is_some_and(|i| scope.slices.contains(&scope.lookup(&i.to_string()))));
            // `&a[1..]` of a slice: the view's start and its own length.
            let sub_slice = self.sub_slice_length(arg, scope)?;
            with_lengths.push(if slice {
                format!("{text}, {text}_len")
            } else if let Some(length) = sub_slice {
                format!("{text}, {length}")
            } else if slice_params.get(i) == Some(&true) {
                self.unsized_argument(arg, text).unwrap_or_else(|| text.clone())
            } else {
                text.clone()
            });
        }
        Ok(Some(format!("{name}({})", with_lengths.join(", "))))
    }

    /// A method of a type of the workspace called on `receiver`, which it takes by reference.
    pub(super) fn item_method(
        &self,
        m: &syn::ExprMethodCall,
        receiver: &str,
        args: &[String],
        scope: &mut Scope,
    ) -> Lowered<String> {
        let method = m.method.to_string();
        let candidates: Vec<FunctionRef<'_>> = self
            .layouts
            .index
            .methods_named(&method, self.layouts.module)
            .filter(|f| f.sig.receiver().is_some())
            .collect();
        let candidates = self.methods_of_receiver(&m.receiver, candidates, scope);
        let types: HashSet<(&ModulePath, Option<&str>)> = candidates.iter().map(|f| (f.module, f.self_type)).collect();
        let [function] = candidates.as_slice() else {
            return match types.len() {
                0 => self.fail(m, format!("method `{method}` is not lowered")),
                n => self.fail(
                    m,
                    format!("method `{method}` is defined for {n} types: the receiver's is not known"),
                ),
            };
        };
        if let Some(call) = self.component_method(m, function, receiver, args, scope)? {
            return Ok(call);
        }
        // A method of the kernel's file called from another file's item: a copy goes early.
        let area = self.area(function.module, "method").unwrap_or(Area::Early);
        let name = self.function_item(m, function, area)?;
        scope.reference_call = returns_reference(function.sig);
        // `(&mut *count).take_one()`: the method binds its reference to the place itself.
        let (place, receiver) = match self.borrowed_receiver(&m.receiver, scope)? {
            Some((place, lowered)) => (place, lowered),
            None => (&*m.receiver, receiver.to_string()),
        };
        let through_pointer = matches!(place, Expr::Path(p) if p.path.get_ident().is_some_and(|i| scope.references.contains(&scope.lookup(&i.to_string()))));
        let receiver = if through_pointer {
            format!("(*{receiver})")
        } else if matches!(place, Expr::Call(_) | Expr::MethodCall(_)) {
            format!("kl::self_ref({receiver})")
        } else {
            receiver.to_string()
        };
        let mut all = vec![receiver];
        for (arg, text) in m.args.iter().zip(args) {
            let slice = matches!(arg, Expr::Path(ap) if ap.path.get_ident().is_some_and(|i| scope.slices.contains(&scope.lookup(&i.to_string()))));
            all.push(if slice {
                format!("{text}, {text}_len")
            } else {
                text.clone()
            });
        }
        Ok(format!("{name}({})", all.join(", ")))
    }

    /// Lowers a free function or method once; its C name (`Type_method` for methods).
    pub(super) fn function_item(
        &self,
        node: &impl quote::ToTokens,
        function: &FunctionRef<'_>,
        area: Area,
    ) -> Lowered<String> {
        self.function_item_with(node, function, area, &[])
    }

    /// `function_item` for a function whose impl's constants take the values of `constants`.
    fn function_item_with(
        &self,
        node: &impl quote::ToTokens,
        function: &FunctionRef<'_>,
        area: Area,
        constants: &[(String, String)],
    ) -> Lowered<String> {
        let instance: Vec<&str> = constants.iter().map(|(_, v)| v.as_str()).collect();
        let wanted = match (function.self_type, instance.is_empty()) {
            (Some(ty), true) => format!("{ty}::{}", function.name),
            (Some(ty), false) => format!("{ty}_{}::{}", instance.join("_"), function.name),
            (None, _) => function.name.clone(),
        };
        let early_copy = area == Area::Early && self.workspace.owner(function.module) == Some(self.home);
        let key = (
            match (function.self_type.is_some(), early_copy) {
                (true, false) => "method",
                (false, false) => "function",
                (true, true) => "early method",
                (false, true) => "early function",
            },
            function.module.clone(),
            wanted,
        );
        let module: &'a ModulePath = match self.layouts.index.module_key(function.module) {
            Some(m) => m,
            None => return self.fail(node, "function of an unknown module"),
        };
        let mut item = syn::ItemFn {
            attrs: Vec::new(),
            vis: syn::Visibility::Inherited,
            sig: function.sig.clone(),
            block: Box::new(function.block.clone()),
        };
        let concrete = self.concrete_self_type(function);
        if let Some(ty) = &concrete {
            super::impl_instances::write_self(&mut item, ty);
        }
        // `impl<T> Stack<T>`: a function template over a class template.
        let templated = concrete.is_none().then(|| self.generic_impl_self(function)).flatten();
        if let Some((ty, generics)) = &templated {
            super::template_methods::as_template_method(&mut item, ty, generics);
        }
        if let Some(ty) = function.self_type {
            SelfType(ty).visit_item_fn_mut(&mut item);
        }
        if let Some(named) = super::impl_params::named(&item) {
            item = named;
        }
        if !constants.is_empty() {
            match super::const_impls::write_in(&item, constants) {
                Some(written) => item = written,
                None => return self.fail(node, format!("`{}`: its constants cannot be written in", function.name)),
            }
        }
        let self_type = match concrete.as_ref().or(templated.as_ref().map(|(ty, _)| ty)) {
            Some(ty) => Some(quote::ToTokens::to_token_stream(ty).to_string()),
            None => function.self_type.map(str::to_string),
        };
        self.require(node, key, area, |name| {
            let inner = self
                .within(module)
                .ok_or_else(|| (self.span(node), "no file".to_string()))?;
            item.sig.ident = syn::Ident::new(name, item.sig.ident.span());
            if let Some(method) = inner.closure_struct_method(&item, self_type.as_deref()) {
                let (prototype, code) = method?;
                return Ok((format!("{prototype};\n"), code));
            }
            // A function generic over types is a function template, as in the kernel's file.
            if let Some(template) = inner.template_helper(&item, self_type.as_deref()) {
                let (prototype, code) = template?;
                return Ok((format!("{prototype};\n"), code));
            }
            if item
                .sig
                .generics
                .params
                .iter()
                .any(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
            {
                return self.fail(&item.sig, "generic functions are not lowered");
            }
            let (prototype, code) = inner.lower_function(&item, self_type.as_deref())?;
            // The instance's struct is defined after the prototypes: its methods are declared
            // by their definitions, which follow it.
            if concrete.is_some() {
                return Ok((String::new(), code));
            }
            Ok((format!("{prototype};\n"), code))
        })
    }
}

/// A `const` item of a module written inline at `inline` below the file's items.
/// The definition the crate's features compile, of the two a `#[cfg]` pair gives.
fn find_const(
    items: &[syn::Item],
    inline: &[String],
    name: &str,
    compiled: &dyn Fn(&[syn::Attribute]) -> bool,
) -> Option<syn::ItemConst> {
    match inline.split_first() {
        Some((first, rest)) => items.iter().find_map(|i| match i {
            syn::Item::Mod(m) if m.ident == first.as_str() && compiled(&m.attrs) => {
                find_const(&m.content.as_ref()?.1, rest, name, compiled)
            }
            _ => None,
        }),
        None => items.iter().find_map(|i| match i {
            syn::Item::Const(c) if c.ident == name && compiled(&c.attrs) => Some(c.clone()),
            _ => None,
        }),
    }
}

/// The receiver parameter of a method: by reference, as Rust passes it.
pub(super) fn receiver_param(receiver: &syn::Receiver, self_type: &str) -> String {
    let mut out = String::new();
    match (&receiver.reference, &receiver.mutability) {
        (Some(_), Some(_)) => {
            let _ = write!(out, "{self_type}& self");
        }
        (Some(_), None) => {
            let _ = write!(out, "const {self_type}& self");
        }
        (None, _) => {
            let _ = write!(out, "{self_type} self");
        }
    }
    out
}

/// `-> &T` or `-> &mut T`: the C function returns a pointer.
fn returns_reference(sig: &syn::Signature) -> bool {
    matches!(&sig.output, syn::ReturnType::Type(_, ty) if matches!(**ty, Type::Reference(_)))
}

/// A static's initializer that C++ evaluates at compile time: a literal (negated or cast) or
/// the address of a static or of a part of one. Another static's value is not one.
fn constant_initializer(expr: &Expr) -> bool {
    fn place(expr: &Expr) -> bool {
        match expr {
            Expr::Path(p) => p.qself.is_none() && p.path.segments.len() == 1,
            Expr::Index(i) => place(&i.expr) && matches!(&*i.index, Expr::Lit(_)),
            Expr::Field(f) => place(&f.base),
            Expr::Paren(p) => place(&p.expr),
            _ => false,
        }
    }
    match expr {
        Expr::Lit(l) => matches!(
            l.lit,
            syn::Lit::Int(_) | syn::Lit::Float(_) | syn::Lit::Bool(_) | syn::Lit::Char(_)
        ),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => constant_initializer(&u.expr),
        Expr::Cast(c) => constant_initializer(&c.expr),
        Expr::Paren(p) => constant_initializer(&p.expr),
        Expr::Reference(r) => place(&r.expr),
        _ => false,
    }
}
