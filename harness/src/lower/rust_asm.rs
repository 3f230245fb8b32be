//! Rust's `asm!` of PTX as CUDA's `asm volatile`: register classes become NVPTX constraints
//! and `{name}` placeholders become the `%N` that CUDA numbers outputs first, then inputs.

use super::ptx_ops::c_string;
use super::{Context, Lowered, Scope};
use syn::parse::{ParseStream, Parser};
use syn::{Expr, Token};

/// One operand of `asm!`: `name = out(reg32) place`, `in(reg64) value`, `options(...)`.
struct Operand {
    name: Option<String>,
    direction: String,
    class: String,
    value: Option<Expr>,
}

fn parse_operand(input: ParseStream) -> syn::Result<Operand> {
    let name = if input.peek2(Token![=]) && !input.peek2(Token![==]) {
        let ident = input.call(<syn::Ident as syn::ext::IdentExt>::parse_any)?;
        let _: Token![=] = input.parse()?;
        Some(ident.to_string())
    } else {
        None
    };
    let direction = input.call(<syn::Ident as syn::ext::IdentExt>::parse_any)?.to_string();
    let inner;
    syn::parenthesized!(inner in input);
    let class: proc_macro2::TokenStream = inner.parse()?;
    let value = match direction.as_str() {
        "options" | "clobber_abi" => None,
        _ if input.peek(Token![_]) => {
            let _: Token![_] = input.parse()?;
            None
        }
        _ => Some(input.parse()?),
    };
    if input.peek(Token![=>]) {
        return Err(input.error("`inout(..) a => b` is not lowered"));
    }
    Ok(Operand {
        name,
        direction,
        class: class.to_string(),
        value,
    })
}

/// The NVPTX constraint letter of a register class of Rust's `asm!`.
fn constraint(class: &str) -> Option<&'static str> {
    Some(match class {
        "reg16" => "h",
        "reg32" => "r",
        "reg64" => "l",
        "freg32" => "f",
        "freg64" => "d",
        _ => return None,
    })
}

impl Context<'_> {
    /// `asm!("tmpl", name = out(reg32) x, in(reg64) p, ...)` as `asm volatile`; unless the
    /// block says `nomem`, it may touch memory as Rust assumes, hence the `memory` clobber.
    pub(super) fn rust_asm(&self, mac: &syn::Macro, scope: &mut Scope) -> Lowered<String> {
        let parser = |input: ParseStream| {
            let mut template = Vec::new();
            let mut operands = Vec::new();
            while !input.is_empty() {
                if operands.is_empty() && input.peek(syn::LitStr) {
                    template.push(input.parse::<syn::LitStr>()?.value());
                } else {
                    operands.push(parse_operand(input)?);
                }
                if input.is_empty() {
                    break;
                }
                let _: Token![,] = input.parse()?;
            }
            Ok((template.join("\n"), operands))
        };
        let (template, operands) = match parser.parse2(mac.tokens.clone()) {
            Ok(parsed) => parsed,
            Err(e) => return self.fail(mac, format!("`asm!` not understood: {e}")),
        };
        let (mut outputs, mut inputs) = (Vec::new(), Vec::new());
        let (mut memory, mut volatile) = (true, true);
        // Positional operands are numbered in source order, named ones by name.
        let mut slots: Vec<(Option<String>, bool, usize)> = Vec::new();
        for operand in &operands {
            if operand.direction == "options" {
                memory &= !operand.class.split(',').any(|o| o.trim() == "nomem");
                volatile &= !operand.class.split(',').any(|o| o.trim() == "pure");
                continue;
            }
            let Some(letter) = constraint(operand.class.trim()) else {
                return self.fail(
                    mac,
                    format!("`asm!` operand class `{}` has no NVPTX constraint", operand.class),
                );
            };
            let Some(value) = &operand.value else {
                return self.fail(
                    mac,
                    format!("`asm!` operand `{}(..) _` is not lowered", operand.direction),
                );
            };
            // A float in a general register class (`in(reg32) x` of an `f32`): NVPTX's `r` and
            // `l` take integers only, and its float classes hold the same bits.
            let letter = match (letter, self.value_type_of(value, scope).as_deref()) {
                ("r", Some("f32")) => "f",
                ("l", Some("f64")) => "d",
                _ => letter,
            };
            let value = self.expr(value, scope)?;
            match operand.direction.as_str() {
                "out" | "lateout" => outputs.push(format!("\"={letter}\"({value})")),
                "inout" | "inlateout" => outputs.push(format!("\"+{letter}\"({value})")),
                "in" => inputs.push(format!("\"{letter}\"({value})")),
                other => return self.fail(mac, format!("`asm!` operand `{other}` is not lowered")),
            }
            let output = operand.direction != "in";
            let index = if output { outputs.len() - 1 } else { inputs.len() - 1 };
            slots.push((operand.name.clone(), output, index));
        }
        let number = |(_, output, index): &(Option<String>, bool, usize)| {
            if *output {
                *index
            } else {
                outputs.len() + index
            }
        };
        let Some(text) = substitute(&template, |placeholder, position| {
            let slot = if placeholder.is_empty() {
                slots.iter().filter(|s| s.0.is_none()).nth(position)
            } else if let Ok(i) = placeholder.parse::<usize>() {
                slots.get(i)
            } else {
                slots.iter().find(|s| s.0.as_deref() == Some(placeholder))
            };
            slot.map(number)
        }) else {
            return self.fail(mac, "`asm!` template placeholder names no operand");
        };
        Ok(format!(
            "asm {}({} : {} : {}{});\n",
            if volatile { "volatile" } else { "" },
            c_string(&text),
            outputs.join(", "),
            inputs.join(", "),
            if memory { " : \"memory\"" } else { "" }
        ))
    }
}

/// The template with `{x}` as `%N`, `{{`/`}}` as braces and PTX's own `%` doubled.
fn substitute(template: &str, mut number: impl FnMut(&str, usize) -> Option<usize>) -> Option<String> {
    let mut out = String::new();
    let mut chars = template.chars().peekable();
    let mut implicit = 0;
    while let Some(ch) = chars.next() {
        match ch {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let mut placeholder = String::new();
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                    placeholder.push(c);
                }
                // Modifiers (`{x:e}`) choose x86 register names; NVPTX has none.
                if placeholder.contains(':') {
                    return None;
                }
                let n = number(placeholder.trim(), implicit)?;
                if placeholder.trim().is_empty() {
                    implicit += 1;
                }
                out.push_str(&format!("%{n}"));
            }
            '%' => out.push_str("%%"),
            other => out.push(other),
        }
    }
    Some(out)
}
