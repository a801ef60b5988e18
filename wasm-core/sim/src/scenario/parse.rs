//! The scenario parser: line by line, each line one directive or one operation. See
//! docs/scenario-format.md for the format.

use super::ast::{Allocator, CacheDecl, Op, OpLine, Ref, Scenario, Switches, Target};
use super::error::{closest, ParseError};
use super::lex::{lex, Tok, Token};
use crate::geometry::SlabFlags;
use crate::machine::MachineConfig;
use std::collections::BTreeSet;

/// The first line of every scenario, before the version number.
pub const MAGIC: &str = "slabscope-scenario";
/// The format version this parser reads.
pub const VERSION: u32 = 1;
/// Kernel profiles this build replays.
pub const PROFILES: &[&str] = &["linux-6.6"];
/// Largest scenario text accepted, in bytes.
pub const MAX_TEXT: usize = 1 << 20;
/// Largest `repeat` count and bulk count.
pub const MAX_REPEAT: u64 = 1_000_000;
pub const MAX_BULK: u64 = 65_536;

const DIRECTIVES: &[&str] = &[
    "profile",
    "allocator",
    "machine",
    "pcp",
    "switch",
    "slub_debug",
    "boot",
    "seed",
    "cache",
    "repeat",
    "for",
];
const OPS: &[&str] = &[
    "kmalloc",
    "kmalloc_node",
    "kfree",
    "kmem_cache_alloc",
    "kmem_cache_alloc_node",
    "kmem_cache_free",
    "kmem_cache_alloc_bulk",
    "kmem_cache_free_bulk",
    "kfree_bulk",
    "alloc_pages",
    "alloc_pages_node",
    "free_pages",
    "drain_pages",
    "flush_cpu_slab",
    "flush_all",
    "kmem_cache_shrink",
    "kmem_cache_destroy",
    "cache_reap",
];

/// Parses a scenario, or says where and why it cannot.
pub fn parse(text: &str) -> Result<Scenario, ParseError> {
    if text.len() > MAX_TEXT {
        return Err(ParseError::new(
            1,
            1,
            "scenario.too_large",
            format!(
                "the scenario is {} bytes; at most {MAX_TEXT} are accepted",
                text.len()
            ),
        ));
    }
    let mut p = Parser::default();
    let mut lines = text.lines().enumerate().map(|(i, l)| (i as u32 + 1, l));
    let Some((_, first)) = lines.next() else {
        return Err(
            ParseError::new(1, 1, "scenario.empty", "the scenario is empty".into())
                .hint(format!("start it with the line `{MAGIC} {VERSION}`")),
        );
    };
    p.version = parse_magic(first)?;
    for (number, raw) in lines {
        let text = raw.split('#').next().unwrap_or("");
        let toks = lex(text, number)?;
        if toks.is_empty() {
            continue;
        }
        let end_col = text.trim_end().chars().count() as u32 + 1;
        let mut line = Line {
            toks: &toks,
            pos: 0,
            number,
            end_col,
        };
        p.line(&mut line)?;
    }
    p.finish()
}

fn parse_magic(first: &str) -> Result<u32, ParseError> {
    let words: Vec<&str> = first.split_whitespace().collect();
    let hint = format!("the first line must be `{MAGIC} {VERSION}`");
    if words.first() != Some(&MAGIC) || words.len() != 2 {
        return Err(ParseError::new(
            1,
            1,
            "scenario.no_magic",
            "this is not a Slabscope scenario".into(),
        )
        .hint(hint));
    }
    match words[1].parse::<u32>() {
        Ok(VERSION) => Ok(VERSION),
        Ok(v) => Err(ParseError::new(
            1,
            MAGIC.len() as u32 + 2,
            "scenario.version",
            format!("format version {v} is not known to this version of Slabscope"),
        )
        .arg("version", v)
        .hint(format!("this build reads version {VERSION}"))),
        Err(_) => Err(ParseError::new(
            1,
            MAGIC.len() as u32 + 2,
            "scenario.version",
            format!("'{}' is not a version number", words[1]),
        )
        .hint(hint)),
    }
}

struct Line<'a> {
    toks: &'a [Token],
    pos: usize,
    number: u32,
    end_col: u32,
}

impl Line<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }
    fn col(&self) -> u32 {
        self.toks.get(self.pos).map_or(self.end_col, |t| t.col)
    }
    fn err(&self, key: &'static str, message: impl Into<String>) -> ParseError {
        ParseError::new(self.number, self.col(), key, message.into())
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).map(|t| t.tok.clone());
        self.pos += 1;
        t
    }
    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }
    fn eat_sym(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Sym(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect_sym(&mut self, c: char) -> Result<(), ParseError> {
        if self.eat_sym(c) {
            Ok(())
        } else {
            Err(self
                .err("scenario.expected", format!("expected '{c}' here"))
                .arg("expected", c))
        }
    }
    fn word(&mut self, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                let w = w.clone();
                self.pos += 1;
                Ok(w)
            }
            _ => Err(self
                .err("scenario.expected", format!("expected {what} here"))
                .arg("expected", what)),
        }
    }
    fn number(&mut self, what: &str, max: u64) -> Result<u64, ParseError> {
        let col = self.col();
        match self.peek() {
            Some(Tok::Num(n)) => {
                let n = *n;
                self.pos += 1;
                if n > max {
                    return Err(ParseError::new(
                        self.number,
                        col,
                        "scenario.too_big",
                        format!("{what} {n} is larger than {max}"),
                    )
                    .arg("what", what)
                    .arg("max", max));
                }
                Ok(n)
            }
            _ => Err(self
                .err(
                    "scenario.expected",
                    format!("expected {what} (a number) here"),
                )
                .arg("expected", what)),
        }
    }
    fn finish(&self) -> Result<(), ParseError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self
                .err(
                    "scenario.trailing",
                    "unexpected text at the end of the line",
                )
                .hint("remove it, or start a comment with #"))
        }
    }
    /// `key=value` pairs until the end of the line.
    fn pairs(&mut self) -> Result<Vec<(String, u32, Vec<Tok>)>, ParseError> {
        let mut out = Vec::new();
        while !self.at_end() {
            let col = self.col();
            let key = self.word("a setting such as cpus=4")?;
            if !self.eat_sym('=') {
                out.push((key, col, Vec::new()));
                continue;
            }
            let mut value = Vec::new();
            loop {
                match self.next() {
                    Some(t @ (Tok::Num(_) | Tok::Word(_))) => value.push(t),
                    _ => {
                        self.pos -= 1;
                        return Err(self
                            .err("scenario.expected", format!("expected a value for {key}"))
                            .arg("expected", key));
                    }
                }
                if !self.eat_sym(',') {
                    break;
                }
            }
            out.push((key, col, value));
        }
        Ok(out)
    }
}

#[derive(Default)]
struct Parser {
    version: u32,
    profile: Option<String>,
    allocator: Option<Allocator>,
    machine: Option<MachineConfig>,
    switches: Switches,
    seed: u64,
    caches: Vec<CacheDecl>,
    ops: Vec<OpLine>,
    names: BTreeSet<String>,
    lists: BTreeSet<String>,
}

fn single_num(
    line: &Line,
    key: &str,
    col: u32,
    value: &[Tok],
    max: u64,
) -> Result<u64, ParseError> {
    match value {
        [Tok::Num(n)] if *n <= max => Ok(*n),
        [Tok::Num(n)] => Err(ParseError::new(
            line.number,
            col,
            "scenario.too_big",
            format!("{key}={n} is larger than {max}"),
        )
        .arg("what", key)
        .arg("max", max)),
        _ => Err(ParseError::new(
            line.number,
            col,
            "scenario.expected",
            format!("{key} takes one number"),
        )
        .arg("expected", key)),
    }
}

impl Parser {
    fn line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let Some(Tok::Word(first)) = line.peek().cloned() else {
            return Err(line.err(
                "scenario.expected",
                "expected a directive or an operation at the start of the line",
            ));
        };
        match first.as_str() {
            "profile" => {
                line.pos += 1;
                let col = line.col();
                let name = line.word("a kernel profile such as linux-6.6")?;
                if !PROFILES.contains(&name.as_str()) {
                    return Err(ParseError::new(
                        line.number,
                        col,
                        "scenario.profile",
                        format!("unknown kernel profile '{name}'"),
                    )
                    .arg("profile", &name)
                    .hint(format!("known profiles: {}", PROFILES.join(", "))));
                }
                self.profile = Some(name);
                line.finish()
            }
            "allocator" => {
                line.pos += 1;
                let col = line.col();
                self.allocator = Some(match line.word("slub or slab")?.as_str() {
                    "slub" => Allocator::Slub,
                    "slab" => Allocator::Slab,
                    other => {
                        return Err(ParseError::new(
                            line.number,
                            col,
                            "scenario.allocator",
                            format!("unknown allocator '{other}'"),
                        )
                        .hint("use `allocator slub` or `allocator slab`"))
                    }
                });
                line.finish()
            }
            "machine" => {
                line.pos += 1;
                self.machine_line(line)
            }
            "pcp" => {
                line.pos += 1;
                let machine = self.machine.as_mut().ok_or_else(|| {
                    line.err("scenario.order", "`pcp` must come after the machine line")
                })?;
                for (key, col, value) in line.pairs()? {
                    let n = single_num(line, &key, col, &value, 1 << 20)? as u32;
                    match key.as_str() {
                        "batch" => machine.pcp_batch = Some(n),
                        "high" => machine.pcp_high = Some(n),
                        _ => {
                            return Err(ParseError::new(
                                line.number,
                                col,
                                "scenario.unknown_setting",
                                format!("unknown pcp setting '{key}'"),
                            )
                            .hint("pcp takes batch=N and high=N"))
                        }
                    }
                }
                Ok(())
            }
            "switch" => {
                line.pos += 1;
                let col = line.col();
                let name = line.word("a switch name")?;
                let on = match line.peek() {
                    None => true,
                    Some(Tok::Word(w)) if w == "on" => {
                        line.pos += 1;
                        true
                    }
                    Some(Tok::Word(w)) if w == "off" => {
                        line.pos += 1;
                        false
                    }
                    _ => return Err(line.err("scenario.expected", "expected on or off")),
                };
                let known = [
                    "freelist_random",
                    "freelist_hardened",
                    "slab_nomerge",
                    "slab_legacy_refill",
                ];
                match name.as_str() {
                    "freelist_random" => self.switches.freelist_random = on,
                    "freelist_hardened" => self.switches.freelist_hardened = on,
                    "slab_nomerge" => self.switches.slab_nomerge = on,
                    "slab_legacy_refill" => self.switches.slab_legacy_refill = on,
                    _ => {
                        let mut e = ParseError::new(
                            line.number,
                            col,
                            "scenario.unknown_switch",
                            format!("unknown switch '{name}'"),
                        )
                        .arg("switch", &name);
                        e = match closest(&name, &known) {
                            Some(k) => e.hint(format!("did you mean {k}?")),
                            None => e.hint(format!("switches: {}", known.join(", "))),
                        };
                        return Err(e);
                    }
                }
                line.finish()
            }
            "slub_debug" => {
                line.pos += 1;
                let col = line.col();
                let letters = line.word("slub_debug letters such as FZPU, or off")?;
                let mut flags = SlabFlags::default();
                if letters != "off" {
                    for c in letters.chars() {
                        match c.to_ascii_uppercase() {
                            'F' => flags.consistency_checks = true,
                            'Z' => flags.red_zone = true,
                            'P' => flags.poison = true,
                            'U' => flags.store_user = true,
                            _ => {
                                return Err(ParseError::new(
                                    line.number,
                                    col,
                                    "scenario.slub_debug",
                                    format!("'{c}' is not a slub_debug letter Slabscope models"),
                                )
                                .hint("use F, Z, P and U"))
                            }
                        }
                    }
                }
                self.switches.slub_debug = flags;
                line.finish()
            }
            "boot" => {
                line.pos += 1;
                for (key, col, value) in line.pairs()? {
                    match key.as_str() {
                        "slub_min_objects" => {
                            self.switches.slub_min_objects =
                                single_num(line, &key, col, &value, 32767)? as u32
                        }
                        "slub_max_order" => {
                            self.switches.slub_max_order =
                                Some(single_num(line, &key, col, &value, 13)? as u32)
                        }
                        "slub_min_order" => {
                            self.switches.slub_min_order =
                                single_num(line, &key, col, &value, 13)? as u32
                        }
                        "slab_max_order" => {
                            self.switches.slab_max_order =
                                Some(single_num(line, &key, col, &value, 13)? as u32)
                        }
                        _ => {
                            return Err(ParseError::new(
                                line.number,
                                col,
                                "scenario.unknown_setting",
                                format!("unknown boot parameter '{key}'"),
                            )
                            .hint(
                                "boot takes slub_min_objects, slub_max_order, slub_min_order and slab_max_order",
                            ))
                        }
                    }
                }
                Ok(())
            }
            "seed" => {
                line.pos += 1;
                self.seed = line.number("the seed", u64::MAX)?;
                line.finish()
            }
            "cache" => {
                line.pos += 1;
                self.cache_line(line)
            }
            _ => self.op_line(line),
        }
    }

    fn machine_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        if self.machine.is_some() {
            return Err(line.err("scenario.duplicate", "a scenario has one machine line"));
        }
        let (mut cpus, mut nodes, mut page_size, mut memory, mut pages, mut cpu_node) =
            (None, 1u32, 4096u32, None, None, Vec::new());
        for (key, col, value) in line.pairs()? {
            match key.as_str() {
                "cpus" => cpus = Some(single_num(line, &key, col, &value, 64)? as u32),
                "nodes" => nodes = single_num(line, &key, col, &value, 4)? as u32,
                "page_size" => page_size = single_num(line, &key, col, &value, 1 << 20)? as u32,
                "memory" => memory = Some((single_num(line, &key, col, &value, 1 << 40)?, col)),
                "pages_per_node" => {
                    pages = Some(single_num(line, &key, col, &value, 1 << 20)? as u32)
                }
                "cpu_node" => {
                    for t in &value {
                        match t {
                            Tok::Num(n) if *n < 4 => cpu_node.push(*n as u32),
                            _ => return Err(ParseError::new(line.number, col, "scenario.expected", "cpu_node is a list of node numbers, one per CPU, e.g. cpu_node=0,0,1,1".to_string())),
                        }
                    }
                }
                _ => {
                    let known = [
                        "cpus",
                        "nodes",
                        "page_size",
                        "memory",
                        "pages_per_node",
                        "cpu_node",
                    ];
                    let mut e = ParseError::new(
                        line.number,
                        col,
                        "scenario.unknown_setting",
                        format!("unknown machine setting '{key}'"),
                    );
                    if let Some(k) = closest(&key, &known) {
                        e = e.hint(format!("did you mean {k}?"));
                    }
                    return Err(e);
                }
            }
        }
        let cpus = cpus.ok_or_else(|| {
            ParseError::new(
                line.number,
                1,
                "scenario.missing",
                "the machine line needs cpus=N".into(),
            )
            .hint("e.g. machine cpus=2 nodes=1 memory=16M")
        })?;
        let pages_per_node = match (memory, pages) {
            (Some(_), Some(_)) => {
                return Err(ParseError::new(
                    line.number,
                    1,
                    "scenario.duplicate",
                    "give memory= or pages_per_node=, not both".into(),
                ))
            }
            (Some((bytes, col)), None) => {
                if page_size == 0
                    || bytes % u64::from(page_size) != 0
                    || bytes / u64::from(page_size) > 1 << 20
                    || bytes == 0
                {
                    return Err(ParseError::new(line.number, col, "scenario.memory", format!("memory={bytes} is not a whole number of pages (at most 2^20 pages a node)")));
                }
                (bytes / u64::from(page_size)) as u32
            }
            (None, Some(p)) => p,
            (None, None) => 4096,
        };
        let config = MachineConfig {
            cpus,
            nodes,
            cpu_node,
            page_size,
            pages_per_node,
            pcp_batch: None,
            pcp_high: None,
        };
        config
            .validate()
            .map_err(|e| ParseError::new(line.number, 1, "scenario.machine", e.to_string()))?;
        self.machine = Some(config);
        Ok(())
    }

    fn cache_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let col = line.col();
        let name = line.word("the cache name")?;
        if self.caches.iter().any(|c| c.name == name) || name.starts_with("kmalloc-") {
            return Err(ParseError::new(
                line.number,
                col,
                "scenario.duplicate",
                format!("a cache named '{name}' already exists"),
            )
            .hint("choose another name"));
        }
        let mut decl = CacheDecl {
            name,
            size: 0,
            align: 0,
            flags: SlabFlags::default(),
            ctor: false,
            line: line.number,
        };
        for (key, col, value) in line.pairs()? {
            match key.as_str() {
                "size" => decl.size = single_num(line, &key, col, &value, 4 << 20)? as u32,
                "align" => decl.align = single_num(line, &key, col, &value, 1 << 20)? as u32,
                "ctor" if value.is_empty() => decl.ctor = true,
                "flags" => {
                    for t in &value {
                        match t {
                            Tok::Word(w) if w == "hwcache_align" => decl.flags.hwcache_align = true,
                            Tok::Word(w) if w == "typesafe_by_rcu" || w == "rcu" => decl.flags.typesafe_by_rcu = true,
                            _ => return Err(ParseError::new(line.number, col, "scenario.cache_flag", format!("unknown cache flag {t:?}")).hint("flags: hwcache_align, typesafe_by_rcu (debug flags come from slub_debug)")),
                        }
                    }
                }
                _ => {
                    return Err(ParseError::new(
                        line.number,
                        col,
                        "scenario.unknown_setting",
                        format!("unknown cache setting '{key}'"),
                    )
                    .hint(
                        "cache NAME size=N [align=N] [flags=hwcache_align,typesafe_by_rcu] [ctor]",
                    ))
                }
            }
        }
        if decl.size == 0 {
            return Err(ParseError::new(
                line.number,
                col,
                "scenario.missing",
                "a cache needs size=N (at least 1)".into(),
            ));
        }
        if decl.align != 0 && !decl.align.is_power_of_two() {
            return Err(ParseError::new(
                line.number,
                col,
                "scenario.align",
                format!("align={} is not a power of two", decl.align),
            ));
        }
        self.caches.push(decl);
        Ok(())
    }

    fn op_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let machine = self.machine.clone().ok_or_else(|| {
            line.err(
                "scenario.order",
                "operations must come after the machine line",
            )
        })?;
        let mut repeat = 1;
        if line.peek() == Some(&Tok::Word("repeat".into())) {
            line.pos += 1;
            repeat = line.number("the repeat count", MAX_REPEAT)? as u32;
            if repeat == 0 {
                return Err(line
                    .err("scenario.too_big", "repeat 0 runs nothing")
                    .hint("remove the line or use a count of 1 or more"));
            }
        }
        let mut for_each = None;
        if line.peek() == Some(&Tok::Word("for".into())) {
            line.pos += 1;
            let var = line.word("a name for each element")?;
            if line.word("in")? != "in" {
                line.pos -= 1;
                return Err(line.err("scenario.expected", "expected `in`"));
            }
            let col = line.col();
            let list = line.word("a list name")?;
            if !self.lists.contains(&list) {
                return Err(ParseError::new(
                    line.number,
                    col,
                    "scenario.unknown_name",
                    format!("'{list}' is not a list"),
                )
                .hint("lists are made with `name[] = ...` or a bulk allocation"));
            }
            line.expect_sym(':')?;
            self.names.insert(var.clone());
            for_each = Some((var, list));
        }
        // Target: `a =` or `a[] =`.
        let mut target = None;
        if let (Some(Tok::Word(w)), Some(next)) = (
            line.peek().cloned(),
            line.toks.get(line.pos + 1).map(|t| &t.tok),
        ) {
            if *next == Tok::Sym('=') {
                line.pos += 2;
                target = Some(Target::Name(w));
            } else if *next == Tok::Sym('[')
                && line.toks.get(line.pos + 2).map(|t| &t.tok) == Some(&Tok::Sym(']'))
            {
                line.pos += 3;
                line.expect_sym('=')?;
                target = Some(Target::Append(w));
            }
        }
        let col = line.col();
        let name = line.word("an operation such as kmalloc(64)")?;
        if !OPS.contains(&name.as_str()) {
            let mut e = ParseError::new(
                line.number,
                col,
                "scenario.unknown_operation",
                format!("unknown operation or directive '{name}'"),
            )
            .arg("name", &name);
            let mut known: Vec<&str> = OPS.to_vec();
            known.extend_from_slice(DIRECTIVES);
            e = match closest(&name, &known) {
                Some(k) => e.hint(format!("did you mean {k}?")),
                None => e.hint("see docs/scenario-format.md for the operations"),
            };
            return Err(e);
        }
        line.expect_sym('(')?;
        let op = self.call(&name, line, &machine)?;
        line.expect_sym(')')?;
        let cpu = if line.peek() == Some(&Tok::Word("on".into())) {
            line.pos += 1;
            let col = line.col();
            let w = line.word("a CPU such as cpu0")?;
            let cpu = w
                .strip_prefix("cpu")
                .and_then(|n| n.parse::<u32>().ok())
                .ok_or_else(|| {
                    ParseError::new(
                        line.number,
                        col,
                        "scenario.cpu",
                        format!("'{w}' is not a CPU"),
                    )
                    .hint("write cpu0, cpu1, ...")
                })?;
            if cpu >= machine.cpus {
                return Err(ParseError::new(
                    line.number,
                    col,
                    "scenario.cpu",
                    format!(
                        "cpu{cpu} does not exist: the machine has {} CPUs",
                        machine.cpus
                    ),
                )
                .arg("cpu", cpu)
                .hint(format!("use cpu0 to cpu{}", machine.cpus - 1)));
            }
            Some(cpu)
        } else {
            None
        };
        line.finish()?;
        let needs_cpu = !matches!(
            op,
            Op::FlushAll { .. }
                | Op::KmemCacheShrink { .. }
                | Op::KmemCacheDestroy { .. }
                | Op::CacheReap
        );
        if needs_cpu && cpu.is_none() {
            return Err(ParseError::new(
                line.number,
                line.end_col,
                "scenario.no_cpu",
                format!("{name} needs the CPU it runs on"),
            )
            .hint("add `on cpu0` (or another CPU) at the end of the line"));
        }
        let returns = matches!(
            op,
            Op::Kmalloc { .. }
                | Op::KmemCacheAlloc { .. }
                | Op::KmemCacheAllocBulk { .. }
                | Op::AllocPages { .. }
        );
        match &target {
            Some(_) if !returns => {
                return Err(ParseError::new(
                    line.number,
                    1,
                    "scenario.no_result",
                    format!("{name} returns nothing to name"),
                ))
            }
            Some(Target::Name(n)) => {
                if repeat > 1 || matches!(op, Op::KmemCacheAllocBulk { .. }) {
                    if matches!(op, Op::KmemCacheAllocBulk { .. }) {
                        self.lists.insert(n.clone());
                    } else {
                        return Err(ParseError::new(
                            line.number,
                            1,
                            "scenario.repeat_name",
                            format!("repeat would overwrite '{n}' each time"),
                        )
                        .hint(format!("append to a list instead: {n}[] = ...")));
                    }
                } else {
                    self.names.insert(n.clone());
                }
            }
            Some(Target::Append(n)) => {
                self.lists.insert(n.clone());
            }
            None => {}
        }
        self.ops.push(OpLine {
            line: line.number,
            repeat,
            for_each,
            target,
            op,
            cpu,
        });
        Ok(())
    }

    fn cache_ref(&self, line: &mut Line) -> Result<String, ParseError> {
        let col = line.col();
        let name = line.word("a cache name")?;
        // kmalloc caches exist from boot; their names are checked when the scenario runs.
        if !name.starts_with("kmalloc-") && !self.caches.iter().any(|c| c.name == name) {
            let known: Vec<&str> = self.caches.iter().map(|c| c.name.as_str()).collect();
            let mut e = ParseError::new(
                line.number,
                col,
                "scenario.unknown_cache",
                format!("no cache named '{name}' was declared"),
            )
            .arg("cache", &name);
            e = match closest(&name, &known) {
                Some(k) => e.hint(format!("did you mean {k}?")),
                None => e.hint(format!("declare it first: cache {name} size=N")),
            };
            return Err(e);
        }
        Ok(name)
    }

    /// A reference to earlier results: `a`, `t[3]`, `t[2..5]`.
    fn obj_ref(&self, line: &mut Line, list: bool) -> Result<Ref, ParseError> {
        let col = line.col();
        let name = line.word("a name given to an earlier result")?;
        let is_list = self.lists.contains(&name);
        if !self.names.contains(&name) && !is_list {
            return Err(ParseError::new(
                line.number,
                col,
                "scenario.unknown_name",
                format!("'{name}' does not name an earlier result"),
            )
            .arg("name", &name)
            .hint("name results with `a = kmalloc(64) on cpu0`, then use the name"));
        }
        if line.eat_sym('[') {
            let start = line.number("an index", u64::from(u32::MAX))? as u32;
            let r = if line.peek() == Some(&Tok::DotDot) {
                line.pos += 1;
                let end = line.number("the end of the range", u64::from(u32::MAX))? as u32;
                if end <= start {
                    return Err(line.err(
                        "scenario.range",
                        format!("the range {start}..{end} is empty"),
                    ));
                }
                Ref::Slice { name, start, end }
            } else {
                Ref::Index { name, index: start }
            };
            line.expect_sym(']')?;
            if !list && matches!(r, Ref::Slice { .. }) {
                return Err(ParseError::new(
                    line.number,
                    col,
                    "scenario.expected",
                    "a single object is expected here, not a range".into(),
                ));
            }
            return Ok(r);
        }
        if list && !is_list {
            return Err(ParseError::new(
                line.number,
                col,
                "scenario.expected",
                format!("'{name}' is a single result; a list is expected here"),
            ));
        }
        if !list && is_list {
            return Err(ParseError::new(
                line.number,
                col,
                "scenario.expected",
                format!("'{name}' is a list; pick one element, e.g. {name}[0]"),
            ));
        }
        Ok(Ref::Name { name })
    }

    fn call(&self, name: &str, line: &mut Line, machine: &MachineConfig) -> Result<Op, ParseError> {
        // A node number that must exist on this machine.
        let node = |line: &mut Line| -> Result<u32, ParseError> {
            let col = line.col();
            let n = line.number("a node", 64)? as u32;
            if n >= machine.nodes {
                return Err(ParseError::new(
                    line.number,
                    col,
                    "scenario.node",
                    format!(
                        "node {n} does not exist: the machine has {} nodes",
                        machine.nodes
                    ),
                ));
            }
            Ok(n)
        };
        Ok(match name {
            "kmalloc" => Op::Kmalloc {
                size: line.number("the size", 1 << 40)?,
                node: None,
            },
            "kmalloc_node" => {
                let size = line.number("the size", 1 << 40)?;
                line.expect_sym(',')?;
                Op::Kmalloc {
                    size,
                    node: Some(node(line)?),
                }
            }
            "kfree" => Op::Kfree {
                obj: self.obj_ref(line, false)?,
            },
            "kmem_cache_alloc" => Op::KmemCacheAlloc {
                cache: self.cache_ref(line)?,
                node: None,
            },
            "kmem_cache_alloc_node" => {
                let cache = self.cache_ref(line)?;
                line.expect_sym(',')?;
                Op::KmemCacheAlloc {
                    cache,
                    node: Some(node(line)?),
                }
            }
            "kmem_cache_free" => {
                let cache = self.cache_ref(line)?;
                line.expect_sym(',')?;
                Op::KmemCacheFree {
                    cache,
                    obj: self.obj_ref(line, false)?,
                }
            }
            "kmem_cache_alloc_bulk" => {
                let cache = self.cache_ref(line)?;
                line.expect_sym(',')?;
                Op::KmemCacheAllocBulk {
                    cache,
                    count: line.number("the count", MAX_BULK)? as u32,
                }
            }
            "kmem_cache_free_bulk" => {
                let cache = self.cache_ref(line)?;
                line.expect_sym(',')?;
                Op::KmemCacheFreeBulk {
                    cache,
                    objs: self.obj_ref(line, true)?,
                }
            }
            "kfree_bulk" => Op::KfreeBulk {
                objs: self.obj_ref(line, true)?,
            },
            "alloc_pages" => Op::AllocPages {
                order: line.number("the order", 13)? as u8,
                node: None,
            },
            "alloc_pages_node" => {
                let n = node(line)?;
                line.expect_sym(',')?;
                Op::AllocPages {
                    order: line.number("the order", 13)? as u8,
                    node: Some(n),
                }
            }
            "free_pages" => Op::FreePages {
                pages: self.obj_ref(line, false)?,
            },
            "drain_pages" => Op::DrainPages,
            "flush_cpu_slab" => Op::FlushCpuSlab {
                cache: self.cache_ref(line)?,
            },
            "flush_all" => Op::FlushAll {
                cache: self.cache_ref(line)?,
            },
            "kmem_cache_shrink" => Op::KmemCacheShrink {
                cache: self.cache_ref(line)?,
            },
            "kmem_cache_destroy" => Op::KmemCacheDestroy {
                cache: self.cache_ref(line)?,
            },
            "cache_reap" => Op::CacheReap,
            _ => unreachable!("checked against OPS"),
        })
    }

    fn finish(self) -> Result<Scenario, ParseError> {
        let machine = self.machine.ok_or_else(|| {
            ParseError::new(
                1,
                1,
                "scenario.missing",
                "the scenario has no machine line".into(),
            )
            .hint("add e.g. `machine cpus=2 nodes=1 memory=16M` after the first line")
        })?;
        Ok(Scenario {
            version: self.version,
            profile: self.profile.unwrap_or_else(|| PROFILES[0].to_string()),
            allocator: self.allocator.unwrap_or(Allocator::Slub),
            machine,
            switches: self.switches,
            seed: self.seed,
            caches: self.caches,
            ops: self.ops,
        })
    }
}
