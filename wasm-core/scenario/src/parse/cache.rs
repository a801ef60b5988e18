//! `cache` lines (`kmem_cache_create()`'s arguments: name, size, align, flags, ctor and the
//! usercopy region) and the cache names operations refer to.

use super::line::{single_num, Line};
use super::Parser;
use crate::ast::{CacheDecl, CacheFlags};
use crate::error::{closest, ParseError};
use crate::lex::{Tok, Token};

/// The flags a `cache` line may give, as its error's hint lists them.
const CACHE_FLAGS_HINT: &str = "flags: hwcache_align, typesafe_by_rcu, account, reclaim_account, cache_dma, cache_dma32, no_merge (debug flags come from slub_debug)";

/// Whether `name` is one of the kmalloc caches boot creates (kmalloc-*, kmalloc-cg-*,
/// kmalloc-rcl-*, kmalloc-rnd-NN-*, dma-kmalloc-*): they exist without a `cache` line, and a
/// `cache` line may not take such a name.
pub(super) fn is_kmalloc_name(name: &str) -> bool {
    name.starts_with("kmalloc-") || name.starts_with("dma-kmalloc-")
}

impl Parser {
    /// A `kmem_cache_args` field of later kernels on a `cache` line; the profile is checked
    /// at the end of the file.
    fn later_arg(
        &mut self,
        line: &Line,
        key: &str,
        col: u32,
        value: &[Token],
        decl: &mut CacheDecl,
    ) -> Result<(), ParseError> {
        if key == "freeptr_offset" {
            decl.freeptr_offset = Some(single_num(line, key, col, value, 4 << 20)? as u32);
            self.later_args.push((line.number, col, "freeptr_offset"));
        } else {
            decl.sheaf_capacity = Some(single_num(line, key, col, value, 1024)? as u32);
            self.later_args.push((line.number, col, "sheaf_capacity"));
        }
        Ok(())
    }

    pub(super) fn cache_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let col = line.col();
        let name = line.word("scenario.expected_cache_name", "the cache name")?;
        if self.caches.iter().any(|c| c.name == name) || is_kmalloc_name(&name) {
            return Err(ParseError::new(
                line.number,
                col,
                "scenario.duplicate_cache",
                format!("a cache named '{name}' already exists"),
            )
            .arg("cache", &name)
            .hint("choose another name"));
        }
        let mut decl = CacheDecl {
            name,
            size: 0,
            align: 0,
            flags: CacheFlags::default(),
            ctor: false,
            useroffset: 0,
            usersize: 0,
            freeptr_offset: None,
            sheaf_capacity: None,
            line: line.number,
        };
        let mut usercopy_col = col;
        for (key, col, value) in line.pairs()? {
            match key.as_str() {
                "size" => decl.size = single_num(line, &key, col, &value, 4 << 20)? as u32,
                "align" => decl.align = single_num(line, &key, col, &value, 1 << 20)? as u32,
                "ctor" if value.is_empty() => decl.ctor = true,
                "usersize" | "useroffset" => {
                    let n = single_num(line, &key, col, &value, 4 << 20)? as u32;
                    self.require_version_2(line.number, col, &format!("{key}="))?;
                    if key == "usersize" {
                        decl.usersize = n;
                    } else {
                        decl.useroffset = n;
                    }
                    usercopy_col = col;
                }
                "flags" => self.cache_flags(line, col, &value, &mut decl.flags)?,
                "freeptr_offset" | "sheaf_capacity" => self.later_arg(line, &key, col, &value, &mut decl)?,
                _ => {
                    return Err(ParseError::new(
                        line.number,
                        col,
                        "scenario.unknown_cache_setting",
                        format!("unknown cache setting '{key}'"),
                    )
                    .arg("setting", &key)
                    .hint(
                        "cache NAME size=N [align=N] [flags=hwcache_align,typesafe_by_rcu,...] [ctor] [usersize=N useroffset=N] [freeptr_offset=N] [sheaf_capacity=N]",
                    ))
                }
            }
        }
        if decl.size == 0 {
            return Err(ParseError::new(
                line.number,
                col,
                "scenario.missing_size",
                "a cache needs size=N (at least 1)".into(),
            ));
        }
        // kmem_cache_create_usercopy(), v6.6: a region that does not fit in the object is
        // dropped with a WARN; here it is a mistake to fix.
        if (decl.usersize == 0 && decl.useroffset != 0)
            || decl.size < decl.usersize
            || decl.size - decl.usersize < decl.useroffset
        {
            return Err(ParseError::new(
                line.number,
                usercopy_col,
                "scenario.usercopy",
                format!(
                    "the usercopy region (useroffset={} usersize={}) does not fit in size={}",
                    decl.useroffset, decl.usersize, decl.size
                ),
            )
            .arg("useroffset", decl.useroffset)
            .arg("usersize", decl.usersize)
            .arg("size", decl.size)
            .hint("useroffset + usersize must be at most size, and useroffset needs a usersize (the kernel WARNs and drops such a region)"));
        }
        if decl.align != 0 && !decl.align.is_power_of_two() {
            return Err(ParseError::new(
                line.number,
                col,
                "scenario.align",
                format!("align={} is not a power of two", decl.align),
            )
            .arg("align", decl.align));
        }
        self.caches.push(decl);
        Ok(())
    }

    pub(super) fn cache_ref(&self, line: &mut Line) -> Result<String, ParseError> {
        let col = line.col();
        let name = line.word("scenario.expected_cache", "a cache name")?;
        // kmalloc caches exist from boot; their names are checked when the scenario runs.
        if !is_kmalloc_name(&name) && !self.caches.iter().any(|c| c.name == name) {
            let known: Vec<&str> = self.caches.iter().map(|c| c.name.as_str()).collect();
            let message = format!("no cache named '{name}' was declared");
            return Err(match closest(&name, &known) {
                Some(k) => ParseError::new(
                    line.number,
                    col,
                    "scenario.unknown_cache_did_you_mean",
                    message,
                )
                .arg("cache", &name)
                .arg("suggestion", k)
                .hint(format!("did you mean {k}?")),
                None => ParseError::new(line.number, col, "scenario.unknown_cache", message)
                    .arg("cache", &name)
                    .hint(format!("declare it first: cache {name} size=N")),
            });
        }
        Ok(name)
    }

    /// `flags=a,b,...` on a cache line, each name setting its flag in `flags`.
    fn cache_flags(
        &self,
        line: &Line,
        col: u32,
        value: &[Token],
        flags: &mut CacheFlags,
    ) -> Result<(), ParseError> {
        for t in value {
            let f = &mut *flags;
            // Format 1 knew hwcache_align and typesafe_by_rcu (or rcu); the
            // flags kmalloc types brought are format 2.
            let v2_flag = match &t.tok {
                Tok::Word(w) if w == "hwcache_align" => {
                    f.hwcache_align = true;
                    None
                }
                Tok::Word(w) if w == "typesafe_by_rcu" || w == "rcu" => {
                    f.typesafe_by_rcu = true;
                    None
                }
                Tok::Word(w) if w == "account" => Some(&mut f.account),
                Tok::Word(w) if w == "reclaim_account" => Some(&mut f.reclaim_account),
                Tok::Word(w) if w == "cache_dma" => Some(&mut f.cache_dma),
                Tok::Word(w) if w == "cache_dma32" => Some(&mut f.cache_dma32),
                Tok::Word(w) if w == "no_merge" => Some(&mut f.no_merge),
                tok => {
                    let flag = match tok {
                        Tok::Word(w) => w.clone(),
                        Tok::Num(n) => n.to_string(),
                        // pairs() keeps only words and numbers in values.
                        Tok::Sym(c) => c.to_string(),
                        Tok::DotDot => "..".to_string(),
                    };
                    return Err(ParseError::new(
                        line.number,
                        col,
                        "scenario.cache_flag",
                        format!("unknown cache flag '{flag}'"),
                    )
                    .arg("flag", flag)
                    .hint(CACHE_FLAGS_HINT));
                }
            };
            if let (Some(set), Tok::Word(w)) = (v2_flag, &t.tok) {
                self.require_version_2(line.number, t.col, &format!("flags={w}"))?;
                *set = true;
            }
        }
        Ok(())
    }
}
