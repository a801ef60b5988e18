//! `#[dual]`: the kernel paths that CPUs race on are written once, as `async` code in a module
//! named `asyn`; the attribute keeps that module and adds its synchronous twin, `sync`, made by
//! rewriting the same tokens:
//!
//! - `async fn` → `fn`, `async` closures → closures, `AsyncFnOnce(..)` bounds → `FnOnce(..)`;
//! - `e.await` → `e`, and `Box::pin(e).await` → `e` (boxing only keeps async state small);
//! - a return type `impl Future<Output = T> + 'a` → `T`;
//! - the context type `Ctx` → a type parameter `K: Kernel` that every function taking a `Ctx`
//!   gains: a context whose boundaries run at once and return their value. Two kinds of memory
//!   run the twin: the machine of a sequential run (`SyncCtx<.., MICRO>`, where `MICRO`, known
//!   when it is compiled, says whether the run keeps micro-steps, so a run that keeps none does
//!   not even test for them) and the shared memory of a live run, where each CPU is a thread
//!   and the shared words are real atomics (`live::LiveCtx`);
//! - the guard type `Call` → `K::Call` (a sequential call is a step of the trace; a live one
//!   is nothing);
//! - a path segment `asyn` → `sync`, so a call into another file's dual module reaches its
//!   twin.
//!
//! The async module runs under the interleaving executor (every boundary may suspend); the
//! sync module runs sequential operations at the speed of plain code. Both come from one
//! text, so they cannot drift apart.

use proc_macro::TokenStream;
use quote::quote;
use syn::visit_mut::{self, VisitMut};
use syn::{
    parse_macro_input, parse_quote, Expr, ExprAwait, ExprCall, ItemFn, ItemMod, PathSegment,
    ReturnType, TraitBound, Type, TypeImplTrait,
};

/// See the crate documentation.
#[proc_macro_attribute]
pub fn dual(_args: TokenStream, input: TokenStream) -> TokenStream {
    let original = parse_macro_input!(input as ItemMod);
    if original.ident != "asyn" {
        return syn::Error::new_spanned(&original.ident, "#[dual] expects a module named `asyn`")
            .to_compile_error()
            .into();
    }
    let mut twin = original.clone();
    twin.ident = syn::Ident::new("sync", original.ident.span());
    Desugar.visit_item_mod_mut(&mut twin);
    quote!(#original #twin).into()
}

/// The rewriting from the async module to its twin.
struct Desugar;

impl VisitMut for Desugar {
    fn visit_item_fn_mut(&mut self, f: &mut ItemFn) {
        f.sig.asyncness = None;
        let inputs = &f.sig.inputs;
        let takes_ctx = mentions_ctx(quote!(#inputs));
        let output = &f.sig.output;
        if !takes_ctx && mentions_ctx(quote!(#output)) {
            // Its twin could not tell which context its result belongs to.
            let message = "#[dual]: a function that returns something of `Ctx` must take a `Ctx`";
            f.block = parse_quote!({ compile_error!(#message) });
            return;
        }
        visit_mut::visit_item_fn_mut(self, f);
        if takes_ctx {
            f.sig
                .generics
                .params
                .push(parse_quote!(K: crate::smp::Kernel));
        }
    }

    fn visit_impl_item_fn_mut(&mut self, f: &mut syn::ImplItemFn) {
        f.sig.asyncness = None;
        visit_mut::visit_impl_item_fn_mut(self, f);
    }

    fn visit_return_type_mut(&mut self, r: &mut ReturnType) {
        if let ReturnType::Type(_, ty) = r {
            if let Some(output) = future_output(ty) {
                if matches!(&output, Type::Tuple(t) if t.elems.is_empty()) {
                    *r = ReturnType::Default;
                } else {
                    **ty = output;
                }
            }
        }
        visit_mut::visit_return_type_mut(self, r);
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Await(ExprAwait { base, .. }) = e {
            let inner = unbox(base);
            *e = inner;
            self.visit_expr_mut(e);
            return;
        }
        if let Expr::Closure(c) = e {
            c.asyncness = None;
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_trait_bound_mut(&mut self, b: &mut TraitBound) {
        if let Some(last) = b.path.segments.last_mut() {
            if last.ident == "AsyncFnOnce" {
                last.ident = syn::Ident::new("FnOnce", last.ident.span());
            } else if last.ident == "AsyncFnMut" {
                last.ident = syn::Ident::new("FnMut", last.ident.span());
            } else if last.ident == "AsyncFn" {
                last.ident = syn::Ident::new("Fn", last.ident.span());
            }
        }
        visit_mut::visit_trait_bound_mut(self, b);
    }

    fn visit_use_path_mut(&mut self, u: &mut syn::UsePath) {
        if u.ident == "asyn" {
            u.ident = syn::Ident::new("sync", u.ident.span());
        }
        visit_mut::visit_use_path_mut(self, u);
    }

    fn visit_path_segment_mut(&mut self, s: &mut PathSegment) {
        if s.ident == "asyn" {
            s.ident = syn::Ident::new("sync", s.ident.span());
        }
        visit_mut::visit_path_segment_mut(self, s);
    }

    fn visit_type_mut(&mut self, t: &mut Type) {
        if let Type::Path(p) = t {
            if p.qself.is_none() && p.path.segments.len() == 1 {
                let name = &p.path.segments[0].ident;
                if name == "Ctx" {
                    *t = parse_quote!(K);
                    return;
                }
                if name == "Call" {
                    *t = parse_quote!(K::Call);
                    return;
                }
            }
        }
        visit_mut::visit_type_mut(self, t);
    }
}

/// Whether tokens name the type `Ctx`.
fn mentions_ctx(tokens: proc_macro2::TokenStream) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == "Ctx",
        proc_macro2::TokenTree::Group(g) => mentions_ctx(g.stream()),
        _ => false,
    })
}

/// `T` of `impl Future<Output = T> + ...`.
fn future_output(ty: &Type) -> Option<Type> {
    let Type::ImplTrait(TypeImplTrait { bounds, .. }) = ty else {
        return None;
    };
    bounds.iter().find_map(|b| {
        let syn::TypeParamBound::Trait(t) = b else {
            return None;
        };
        let last = t.path.segments.last()?;
        if last.ident != "Future" {
            return None;
        }
        let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
            return None;
        };
        args.args.iter().find_map(|a| match a {
            syn::GenericArgument::AssocType(at) if at.ident == "Output" => Some(at.ty.clone()),
            _ => None,
        })
    })
}

/// `e` of `Box::pin(e)`, else the expression itself.
fn unbox(base: &Expr) -> Expr {
    if let Expr::Call(ExprCall { func, args, .. }) = base {
        if let Expr::Path(p) = &**func {
            let names: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            if names == ["Box", "pin"] && args.len() == 1 {
                return args[0].clone();
            }
        }
    }
    let e: Expr = parse_quote!(#base);
    e
}
