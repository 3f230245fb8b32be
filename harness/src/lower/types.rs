//! Rust types to C types and declarators.

use super::{Context, Lowered};
use syn::Type;

impl Context<'_> {
    pub(super) fn primitive(name: &str) -> Option<&'static str> {
        Some(match name {
            "u8" => "unsigned char",
            "i8" => "signed char",
            "u16" => "unsigned short",
            "i16" => "short",
            "u32" => "unsigned int",
            "i32" => "int",
            "u64" | "usize" => "unsigned long long",
            "i64" | "isize" => "long long",
            "i128" => "__int128",
            "u128" => "unsigned __int128",
            "f32" => "float",
            "f64" => "double",
            "f16" => "__half",
            "bf16" => "__nv_bfloat16",
            "bool" => "bool",
            // A Unicode scalar value, four bytes.
            "char" => "unsigned int",
            _ => return None,
        })
    }

    /// The C type of a non-array type.
    pub(super) fn c_type(&self, ty: &Type) -> Lowered<String> {
        if let Some(pointer) = self.non_null_type(ty) {
            return pointer;
        }
        match ty {
            Type::Paren(p) => self.c_type(&p.elem),
            Type::Group(g) => self.c_type(&g.elem),
            Type::Ptr(p) => {
                let inner = self.c_type(&p.elem)?;
                Ok(if p.mutability.is_some() {
                    format!("{inner}*")
                } else {
                    format!("const {inner}*")
                })
            }
            Type::Reference(r) if matches!(&*r.elem, Type::Array(_)) => match self.array_reference(r)? {
                Some(aref) => Ok(aref),
                None => self.fail(ty, "reference to an array"),
            },
            Type::Reference(r) if r.mutability.is_some() => Ok(format!("{}*", self.c_type(&r.elem)?)),
            Type::Reference(r) => Ok(format!("const {}*", self.c_type(&r.elem)?)),
            Type::Array(a) => self.array_type(a),
            Type::Tuple(t) if t.elems.is_empty() => Ok("kl::unit".to_string()),
            Type::Tuple(t) if (1..=8).contains(&t.elems.len()) => {
                let elems = t.elems.iter().map(|e| self.c_type(e)).collect::<Lowered<Vec<_>>>()?;
                Ok(format!("kl::tuple{}<{}>", elems.len(), elems.join(", ")))
            }
            Type::Path(syn::TypePath {
                qself: Some(qself),
                path,
            }) => self.associated_type(ty, qself, path),
            Type::BareFn(f) => self.fn_pointer_type(f),
            // `-> !`: the function never returns, which C++ spells as returning nothing.
            Type::Never(_) => Ok("void".to_string()),
            Type::Path(_) if self.template_type(ty).is_some() => Ok(self.template_type(ty).unwrap_or_default()),
            Type::Path(p) => {
                let segment = p
                    .path
                    .segments
                    .last()
                    .ok_or_else(|| (self.span(ty), "empty type path".to_string()))?;
                let name = segment.ident.to_string();
                if let Some(c) = Self::primitive(&name) {
                    return Ok(c.to_string());
                }
                if let Some(c) = self.option_type(segment)? {
                    return Ok(c);
                }
                if let Some(c) = self.simd_type(segment)? {
                    return Ok(c);
                }
                if let Some(c) = self.oxide_type(&name) {
                    return Ok(c);
                }
                if let Some(c) = self.shared_array_type(ty)? {
                    return Ok(c);
                }
                if let Some(c) = self.vek_type(ty) {
                    return Ok(c);
                }
                if let Some(c) = self.group_type(p)? {
                    return Ok(c);
                }
                if name == "MaybeUninit" {
                    if let syn::PathArguments::AngleBracketed(args) = &segment.arguments {
                        if let Some(syn::GenericArgument::Type(inner)) = args.args.first() {
                            return self.c_type(inner);
                        }
                    }
                }
                if self.structs.contains(&name) {
                    return Ok(name);
                }
                if let Some(vector) = glam_vector(&name) {
                    return Ok(vector.to_string());
                }
                if let Some(c) = self.device_pointer_type(ty)? {
                    return Ok(c);
                }
                if let Some(c) = self.item_type(ty, &p.path)? {
                    return Ok(c);
                }
                if let Some(c) = self.nalgebra_type(ty)? {
                    return Ok(c);
                }
                if let Some(c) = self.generic_struct_instance(ty)? {
                    return Ok(c);
                }
                if let Some(c) = self.ordering_type(ty) {
                    return Ok(c);
                }
                if let Some(reason) = self.generic_struct(ty) {
                    return self.fail(ty, reason);
                }
                if let Some(reason) = self.external_item(&p.path) {
                    return self.fail(ty, reason);
                }
                if let Some(mac) = p
                    .path
                    .segments
                    .last()
                    .and_then(|s| self.macro_defining(&s.ident.to_string()))
                {
                    return self.fail(
                        ty,
                        format!(
                            "type `{}` is defined by macro `{mac}!`, which is not expanded",
                            self.text(ty)
                        ),
                    );
                }
                self.fail(ty, format!("type `{}` has no CUDA C equivalent here", self.text(ty)))
            }
            _ => self.fail(ty, format!("type `{}` has no CUDA C equivalent here", self.text(ty))),
        }
    }

    /// `float TILE[32][33]` for `TILE: [[f32; 33]; 32]`.
    pub(super) fn declarator(&self, ty: &Type, name: &str) -> Lowered<String> {
        if let Some(shared) = self.oxide_declarator(ty, name)? {
            return Ok(shared);
        }
        match ty {
            Type::Array(a) => Ok(format!("{} {name}", self.array_type(a)?)),
            Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "MaybeUninit") => {
                let inner = p.path.segments.last().and_then(|s| match &s.arguments {
                    syn::PathArguments::AngleBracketed(args) => match args.args.first() {
                        Some(syn::GenericArgument::Type(inner)) => Some(inner),
                        _ => None,
                    },
                    _ => None,
                });
                match inner {
                    Some(inner) => self.declarator(inner, name),
                    None => self.fail(ty, "MaybeUninit without a type"),
                }
            }
            other => Ok(format!("{} {name}", self.c_type(other)?)),
        }
    }
}

/// glam's vector types as compiled for CUDA, defined in [`PRELUDE`] with the same layout.
pub(super) fn glam_vector(name: &str) -> Option<&'static str> {
    Some(match name {
        "Vec2" => "kl::Vec2",
        "Vec3" => "kl::Vec3",
        "Vec4" => "kl::Vec4",
        "Vec3A" => "kl::Vec3A",
        "UVec2" => "kl::UVec2",
        "UVec3" => "kl::UVec3",
        "UVec4" => "kl::UVec4",
        "IVec2" => "kl::IVec2",
        "IVec3" => "kl::IVec3",
        "IVec4" => "kl::IVec4",
        _ => return glam_family(name),
    })
}

/// A glam vector's C type, element C type, whether that is a float, and lane count.
pub(super) fn glam_lanes(name: &str) -> Option<(&'static str, &'static str, bool, usize)> {
    let c_type = glam_vector(name)?;
    let (prefix, lanes) = name.split_once("Vec")?;
    let lanes = if lanes == "3A" { 3 } else { lanes.parse().ok()? };
    let rust = match prefix {
        "" => "f32",
        "D" => "f64",
        "I" => "i32",
        "U" => "u32",
        "USize" => "usize",
        other => return Context::primitive(&other.to_ascii_lowercase()).map(|elem| (c_type, elem, false, lanes)),
    };
    Context::primitive(rust).map(|elem| (c_type, elem, rust.starts_with('f'), lanes))
}

/// glam's vectors of other elements: `DVec3`, `U8Vec4`, `USizeVec2` and the like.
fn glam_family(name: &str) -> Option<&'static str> {
    const NAMES: &[&str] = &[
        "DVec2",
        "DVec3",
        "DVec4",
        "I8Vec2",
        "I8Vec3",
        "I8Vec4",
        "U8Vec2",
        "U8Vec3",
        "U8Vec4",
        "I16Vec2",
        "I16Vec3",
        "I16Vec4",
        "U16Vec2",
        "U16Vec3",
        "U16Vec4",
        "I64Vec2",
        "I64Vec3",
        "I64Vec4",
        "U64Vec2",
        "U64Vec3",
        "U64Vec4",
        "USizeVec2",
        "USizeVec3",
        "USizeVec4",
    ];
    const C_NAMES: &[&str] = &[
        "kl::DVec2",
        "kl::DVec3",
        "kl::DVec4",
        "kl::I8Vec2",
        "kl::I8Vec3",
        "kl::I8Vec4",
        "kl::U8Vec2",
        "kl::U8Vec3",
        "kl::U8Vec4",
        "kl::I16Vec2",
        "kl::I16Vec3",
        "kl::I16Vec4",
        "kl::U16Vec2",
        "kl::U16Vec3",
        "kl::U16Vec4",
        "kl::I64Vec2",
        "kl::I64Vec3",
        "kl::I64Vec4",
        "kl::U64Vec2",
        "kl::U64Vec3",
        "kl::U64Vec4",
        "kl::USizeVec2",
        "kl::USizeVec3",
        "kl::USizeVec4",
    ];
    NAMES.iter().position(|n| *n == name).map(|i| C_NAMES[i])
}

/// Whether `e` is built only of literals, named constants (upper-case paths), arithmetic and
/// casts, so that C++ evaluates it at compile time.
pub(super) fn is_constant_expression(e: &syn::Expr) -> bool {
    use syn::Expr;
    match e {
        Expr::Lit(l) => matches!(l.lit, syn::Lit::Int(_) | syn::Lit::Float(_) | syn::Lit::Bool(_)),
        Expr::Path(p) => p.path.segments.last().is_some_and(|s| {
            let name = s.ident.to_string();
            name.chars().any(|c| c.is_ascii_uppercase()) && !name.chars().any(|c| c.is_ascii_lowercase())
        }),
        Expr::Paren(p) => is_constant_expression(&p.expr),
        Expr::Group(g) => is_constant_expression(&g.expr),
        Expr::Cast(c) => is_constant_expression(&c.expr),
        Expr::Unary(u) => is_constant_expression(&u.expr),
        Expr::Binary(b) => is_constant_expression(&b.left) && is_constant_expression(&b.right),
        _ => false,
    }
}

/// Whether a field's type is a zero-sized marker.
pub(super) fn is_marker(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "PhantomData"))
}
