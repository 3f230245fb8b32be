//! `core::ptr::NonNull<T>`: a non-null `*mut T`, which is the pointer in C. `transmute`
//! between it and an address-sized integer is the cast of the same bits.

use super::{Context, Lowered};
use syn::{GenericArgument, PathArguments, Type};

/// The `T` of `NonNull<T>`, `ptr::NonNull<T>`, `core::ptr::NonNull<T>`.
fn pointee(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let segments: Vec<_> = p.path.segments.iter().collect();
    let last = segments.last()?;
    let owner_is_ptr = segments.len() == 1 || segments[segments.len() - 2].ident == "ptr";
    if last.ident != "NonNull" || !owner_is_ptr {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.iter().collect::<Vec<_>>().as_slice() {
        [GenericArgument::Type(t)] => Some(t),
        _ => None,
    }
}

/// Whether a type is an integer as wide as an address.
fn address_integer(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if ["usize", "u64", "isize", "i64"].iter().any(|n| p.path.is_ident(n)))
}

impl Context<'_> {
    /// `NonNull<T>` as `T*`; `None` for any other type.
    pub(super) fn non_null_type(&self, ty: &Type) -> Option<Lowered<String>> {
        let inner = pointee(ty)?;
        Some(self.c_type(inner).map(|t| format!("{t}*")))
    }

    /// `transmute::<usize, NonNull<u8>>(a)` and back: the cast of the address.
    pub(super) fn non_null_transmute(&self, generics: &[&GenericArgument], value: &str) -> Option<Lowered<String>> {
        let [GenericArgument::Type(from), GenericArgument::Type(to)] = generics else {
            return None;
        };
        if pointee(to).is_some() && address_integer(from) {
            return Some(self.c_type(to).map(|t| format!("(({t})({value}))")));
        }
        if pointee(from).is_some() && address_integer(to) {
            return Some(self.c_type(to).map(|t| format!("(({t})({value}))")));
        }
        None
    }
}
