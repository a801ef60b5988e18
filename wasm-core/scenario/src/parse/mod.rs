//! The scenario parser: line by line, each line one directive, one operation or (format 2)
//! one statement: a list line or a `print` (parse/statement.rs). See docs/scenario-format.md
//! for the format.
//!
//! Versions: a file says its format on its first line. Format 2 only adds what format 1
//! refused: list lines and `print` (parse/statement.rs), gfp flags and `at SITE` on kmalloc
//! calls, the RCU operations, `switch random_kmalloc_caches`, and the cache options
//! `usersize=`/`useroffset=` and flags `account`, `reclaim_account`, `cache_dma`,
//! `cache_dma32`, `no_merge`. A format 1 file parses exactly as it always did; each new form in
//! a format 1 file is parsed (so a wrong name is still named as such) and then refused with
//! `scenario.needs_version` where it stands, naming the first line to write.

mod statement;

use crate::ast::{
    Allocator, CacheDecl, CacheFlags, Op, OpLine, Ref, Scenario, SlubDebug, StatementLine,
    Switches, Target,
};
use crate::error::{closest, ParseError};
use crate::gfp::{Gfp, GfpRefusal, GFP_KERNEL, GFP_NAMES, GFP_REFUSED};
use crate::lex::{lex, Tok, Token};
use crate::limits::{
    MAX_BULK, MAX_CPUS, MAX_MIN_OBJECTS, MAX_NODES, MAX_ORDER, MAX_PAGES_PER_NODE, MAX_REPEAT,
    MAX_TEXT,
};
use crate::machine::{MachineDecl, MachineError};
use std::collections::BTreeSet;

/// The first line of every scenario, before the version number.
pub const MAGIC: &str = "slabscope-scenario";
/// The newest format version this parser reads, which new scenarios are offered.
pub const VERSION: u32 = 2;
/// Every format version this parser reads, oldest first.
pub const VERSIONS: &[u32] = &[1, 2];
/// Kernel profiles this build replays.
pub const PROFILES: &[&str] = &["linux-6.6"];

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
    "kfree_rcu",
    "kfree_rcu_mightsleep",
    "kfree_rcu_monitor",
    "synchronize_rcu",
    "rcu_barrier",
];

/// A number an operation or directive needs: its English name and the keys of its two errors
/// (missing, and larger than allowed).
struct NumberSlot {
    what: &'static str,
    missing: &'static str,
    too_big: &'static str,
}

const REPEAT_COUNT: NumberSlot = NumberSlot {
    what: "the repeat count",
    missing: "scenario.expected_repeat_count",
    too_big: "scenario.repeat_count_too_big",
};
const INDEX: NumberSlot = NumberSlot {
    what: "an index",
    missing: "scenario.expected_index",
    too_big: "scenario.index_too_big",
};
const RANGE_END: NumberSlot = NumberSlot {
    what: "the end of the range",
    missing: "scenario.expected_range_end",
    too_big: "scenario.range_end_too_big",
};
const NODE: NumberSlot = NumberSlot {
    what: "a node",
    missing: "scenario.expected_node",
    too_big: "scenario.node_too_big",
};
const SIZE: NumberSlot = NumberSlot {
    what: "the size",
    missing: "scenario.expected_size",
    too_big: "scenario.size_too_big",
};
const COUNT: NumberSlot = NumberSlot {
    what: "the count",
    missing: "scenario.expected_count",
    too_big: "scenario.count_too_big",
};
const ORDER: NumberSlot = NumberSlot {
    what: "the order",
    missing: "scenario.expected_order",
    too_big: "scenario.order_too_big",
};

/// The flags a `cache` line may give, as its error's hint lists them.
const CACHE_FLAGS_HINT: &str = "flags: hwcache_align, typesafe_by_rcu, account, reclaim_account, cache_dma, cache_dma32, no_merge (debug flags come from slub_debug)";

/// Whether `name` is one of the kmalloc caches boot creates (kmalloc-*, kmalloc-cg-*,
/// kmalloc-rcl-*, kmalloc-rnd-NN-*, dma-kmalloc-*): they exist without a `cache` line, and a
/// `cache` line may not take such a name.
fn is_kmalloc_name(name: &str) -> bool {
    name.starts_with("kmalloc-") || name.starts_with("dma-kmalloc-")
}

/// gfp flags: kernel names joined by `|` (`GFP_KERNEL_ACCOUNT`, `GFP_KERNEL | __GFP_RECLAIMABLE`).
fn gfp_names(line: &mut Line) -> Result<Gfp, ParseError> {
    let mut gfp = Gfp(0);
    loop {
        let col = line.col();
        let name = line.word(
            "scenario.expected_gfp",
            "gfp flags such as GFP_KERNEL or GFP_KERNEL_ACCOUNT",
        )?;
        if let Some(g) = Gfp::from_name(&name) {
            gfp = gfp | g;
        } else if let Some((_, why)) = GFP_REFUSED.iter().find(|(n, _)| *n == name) {
            let (key, message) = match why {
                GfpRefusal::SlabBugMask => (
                    "scenario.gfp_slab_bug_mask",
                    format!("kmalloc() must not be given {name}: it asks for pages slabs never use (GFP_SLAB_BUG_MASK)"),
                ),
                GfpRefusal::Movable => (
                    "scenario.gfp_movable",
                    format!("{name}: slab pages are never movable"),
                ),
                GfpRefusal::ThisNode => (
                    "scenario.gfp_thisnode",
                    format!("{name} is not modelled: kmalloc_node() here may fall back to another node"),
                ),
            };
            return Err(ParseError::new(line.number, col, key, message)
                .arg("flag", &name)
                .hint(
                    "use GFP_KERNEL, GFP_KERNEL_ACCOUNT, GFP_ATOMIC, GFP_DMA or __GFP_RECLAIMABLE",
                ));
        } else {
            let known: Vec<&str> = GFP_NAMES.iter().map(|(n, _)| *n).collect();
            let message = format!("unknown gfp flag '{name}'");
            return Err(match closest(&name, &known) {
                Some(k) => ParseError::new(
                    line.number,
                    col,
                    "scenario.unknown_gfp_did_you_mean",
                    message,
                )
                .arg("flag", &name)
                .arg("suggestion", k)
                .hint(format!("did you mean {k}?")),
                None => ParseError::new(line.number, col, "scenario.unknown_gfp", message)
                    .arg("flag", &name)
                    .hint("gfp flags: GFP_KERNEL, GFP_KERNEL_ACCOUNT, GFP_ATOMIC, GFP_NOWAIT, GFP_DMA, __GFP_ACCOUNT, __GFP_RECLAIMABLE, ... joined with |"),
            });
        }
        if !line.eat_sym('|') {
            return Ok(gfp);
        }
    }
}

/// The operations format 2 added, as `scenario.needs_version` names them.
fn format_2_call(op: &Op) -> Option<&'static str> {
    Some(match op {
        Op::KfreeRcu {
            mightsleep: false, ..
        } => "kfree_rcu(…)",
        Op::KfreeRcu {
            mightsleep: true, ..
        } => "kfree_rcu_mightsleep(…)",
        Op::KfreeRcuMonitor => "kfree_rcu_monitor()",
        Op::SynchronizeRcu => "synchronize_rcu()",
        Op::RcuBarrier => "rcu_barrier()",
        _ => return None,
    })
}

/// A machine the scenario describes but that cannot be built: one key per reason, with the
/// English text of `MachineError`.
fn machine_error(line: u32, e: &MachineError) -> ParseError {
    let error = |key| ParseError::new(line, 1, key, e.to_string());
    match *e {
        MachineError::Cpus(n) => error("scenario.machine_cpus")
            .arg("cpus", n)
            .arg("max", MAX_CPUS),
        MachineError::Nodes(n) => error("scenario.machine_nodes")
            .arg("nodes", n)
            .arg("max", MAX_NODES),
        MachineError::PageSize(p) => error("scenario.machine_page_size").arg("page_size", p),
        MachineError::Pages(p) => error("scenario.machine_pages")
            .arg("pages", p)
            .arg("max", MAX_PAGES_PER_NODE),
        MachineError::CpuNodeLength { expected, got } => error("scenario.machine_cpu_node_length")
            .arg("entries", got)
            .arg("cpus", expected),
        MachineError::CpuNode { cpu, node } => error("scenario.machine_cpu_node")
            .arg("cpu", cpu)
            .arg("node", node),
        MachineError::NodeWithoutCpu(n) => {
            error("scenario.machine_node_without_cpu").arg("node", n)
        }
    }
}

/// `on cpuN` after an operation that no one CPU runs: a grace period belongs to no CPU, and
/// the callbacks `rcu_barrier()` waits for run on the CPUs that queued them.
fn no_cpu_wanted(op: &Op, name: &str, line: u32, col: u32) -> Result<(), ParseError> {
    if !matches!(op, Op::SynchronizeRcu | Op::RcuBarrier) {
        return Ok(());
    }
    Err(ParseError::new(
        line,
        col,
        "scenario.cpu_not_wanted",
        format!(
            "{name} does not run on one CPU: a grace period belongs to no CPU, and callbacks \
             run on the CPUs that queued them"
        ),
    )
    .arg("operation", name)
    .hint("remove `on cpuN`"))
}

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
        )
        .arg("bytes", text.len())
        .arg("max", MAX_TEXT));
    }
    let mut p = Parser::default();
    let mut lines = text.lines().enumerate().map(|(i, l)| (i as u32 + 1, l));
    let Some((_, first)) = lines.next() else {
        return Err(
            ParseError::new(1, 1, "scenario.empty", "the scenario is empty".into())
                .arg("first_line", format!("{MAGIC} {VERSION}"))
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
    let first_line = format!("{MAGIC} {VERSION}");
    let supported = VERSIONS
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let hint = format!("the first line must be `{first_line}`");
    if words.first() != Some(&MAGIC) || words.len() != 2 {
        return Err(ParseError::new(
            1,
            1,
            "scenario.no_magic",
            "this is not a Slabscope scenario".into(),
        )
        .arg("first_line", first_line)
        .hint(hint));
    }
    match words[1].parse::<u32>() {
        Ok(v) if VERSIONS.contains(&v) => Ok(v),
        Ok(v) => Err(ParseError::new(
            1,
            MAGIC.len() as u32 + 2,
            "scenario.version",
            format!("format version {v} is not known to this version of Slabscope"),
        )
        .arg("version", v)
        .arg("supported", &supported)
        .hint(format!("this build reads versions {supported}"))),
        Err(_) => Err(ParseError::new(
            1,
            MAGIC.len() as u32 + 2,
            "scenario.bad_version",
            format!("'{}' is not a version number", words[1]),
        )
        .arg("version", words[1])
        .arg("first_line", first_line)
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
    /// The token `ahead` places after the current one.
    fn tok_at(&self, ahead: usize) -> Option<&Tok> {
        self.toks.get(self.pos + ahead).map(|t| &t.tok)
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
                .err("scenario.expected_symbol", format!("expected '{c}' here"))
                .arg("symbol", c))
        }
    }
    /// A word; if there is none, the error `key` says "expected {what} here" (each place that
    /// wants a word has its own key, so the web app can word `what` in any language).
    fn word(&mut self, key: &'static str, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                let w = w.clone();
                self.pos += 1;
                Ok(w)
            }
            _ => Err(self.err(key, format!("expected {what} here"))),
        }
    }
    /// A number, any size; if there is none, the error `key` says "expected {what} (a number)
    /// here".
    fn number(&mut self, key: &'static str, what: &str) -> Result<u64, ParseError> {
        match self.peek() {
            Some(Tok::Num(n)) => {
                let n = *n;
                self.pos += 1;
                Ok(n)
            }
            _ => Err(self.err(key, format!("expected {what} (a number) here"))),
        }
    }
    /// A number up to `max`: `slot.missing` when there is none, `slot.too_big` when it is
    /// larger.
    fn bounded(&mut self, slot: &NumberSlot, max: u64) -> Result<u64, ParseError> {
        let col = self.col();
        let n = self.number(slot.missing, slot.what)?;
        if n > max {
            return Err(ParseError::new(
                self.number,
                col,
                slot.too_big,
                format!("{} {n} is larger than {max}", slot.what),
            )
            .arg("value", n)
            .arg("max", max));
        }
        Ok(n)
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
    /// Each value keeps its column, so a value can be refused where it stands.
    fn pairs(&mut self) -> Result<Vec<(String, u32, Vec<Token>)>, ParseError> {
        let mut out = Vec::new();
        while !self.at_end() {
            let col = self.col();
            let key = self.word("scenario.expected_setting", "a setting such as cpus=4")?;
            if !self.eat_sym('=') {
                out.push((key, col, Vec::new()));
                continue;
            }
            let mut value = Vec::new();
            loop {
                let value_col = self.col();
                match self.next() {
                    Some(tok @ (Tok::Num(_) | Tok::Word(_))) => value.push(Token {
                        tok,
                        col: value_col,
                    }),
                    _ => {
                        self.pos -= 1;
                        return Err(self
                            .err(
                                "scenario.expected_value",
                                format!("expected a value for {key}"),
                            )
                            .arg("setting", key));
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
    machine: Option<MachineDecl>,
    switches: Switches,
    seed: u64,
    caches: Vec<CacheDecl>,
    ops: Vec<OpLine>,
    statements: Vec<StatementLine>,
    names: BTreeSet<String>,
    lists: BTreeSet<String>,
    /// Where `switch random_kmalloc_caches on` is, to refuse it under SLAB at the end.
    random_kmalloc_line: Option<(u32, u32)>,
}

fn single_num(
    line: &Line,
    key: &str,
    col: u32,
    value: &[Token],
    max: u64,
) -> Result<u64, ParseError> {
    let value: Vec<&Tok> = value.iter().map(|t| &t.tok).collect();
    match value[..] {
        [Tok::Num(n)] if *n <= max => Ok(*n),
        [Tok::Num(n)] => Err(ParseError::new(
            line.number,
            col,
            "scenario.too_big",
            format!("{key}={n} is larger than {max}"),
        )
        .arg("setting", key)
        .arg("value", n)
        .arg("max", max)),
        _ => Err(ParseError::new(
            line.number,
            col,
            "scenario.expected_one_number",
            format!("{key} takes one number"),
        )
        .arg("setting", key)),
    }
}

impl Parser {
    /// `at SITE` after a kmalloc call (before or after `on cpuN`): the name of the call site, whose
    /// address `kmalloc_type()` hashes with random kmalloc caches.
    fn call_site(&self, line: &mut Line, op: &mut Op) -> Result<(), ParseError> {
        if line.peek() != Some(&Tok::Word("at".into())) {
            return Ok(());
        }
        let Op::Kmalloc {
            site: site @ None, ..
        } = op
        else {
            if matches!(op, Op::Kmalloc { .. }) {
                // A second `at`: finish() reports the rest of the line.
                return Ok(());
            }
            return Err(line
                .err(
                    "scenario.site_not_kmalloc",
                    format!(
                        "only kmalloc and kmalloc_node take a call site, not {}",
                        op.name()
                    ),
                )
                .arg("operation", op.name())
                .hint("remove `at ...`"));
        };
        self.require_version_2(line.number, line.col(), "at SITE")?;
        line.pos += 1;
        *site = Some(line.word("scenario.expected_site", "a call site name such as site_a")?);
        Ok(())
    }

    fn line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let Some(Tok::Word(first)) = line.peek().cloned() else {
            return Err(line.err(
                "scenario.expected_directive",
                "expected a directive or an operation at the start of the line",
            ));
        };
        match first.as_str() {
            "profile" => {
                line.pos += 1;
                let col = line.col();
                let name = line.word(
                    "scenario.expected_profile",
                    "a kernel profile such as linux-6.6",
                )?;
                if !PROFILES.contains(&name.as_str()) {
                    return Err(ParseError::new(
                        line.number,
                        col,
                        "scenario.profile",
                        format!("unknown kernel profile '{name}'"),
                    )
                    .arg("profile", &name)
                    .arg("known", PROFILES.join(", "))
                    .hint(format!("known profiles: {}", PROFILES.join(", "))));
                }
                self.profile = Some(name);
                line.finish()
            }
            "allocator" => {
                line.pos += 1;
                let col = line.col();
                let word = line.word("scenario.expected_allocator", "slub or slab")?;
                self.allocator = Some(match word.as_str() {
                    "slub" => Allocator::Slub,
                    "slab" => Allocator::Slab,
                    other => {
                        return Err(ParseError::new(
                            line.number,
                            col,
                            "scenario.allocator",
                            format!("unknown allocator '{other}'"),
                        )
                        .arg("allocator", other)
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
                    line.err(
                        "scenario.pcp_before_machine",
                        "`pcp` must come after the machine line",
                    )
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
                                "scenario.unknown_pcp_setting",
                                format!("unknown pcp setting '{key}'"),
                            )
                            .arg("setting", &key)
                            .hint("pcp takes batch=N and high=N"))
                        }
                    }
                }
                Ok(())
            }
            "switch" => {
                line.pos += 1;
                let col = line.col();
                let name = line.word("scenario.expected_switch", "a switch name")?;
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
                    _ => return Err(line.err("scenario.expected_on_off", "expected on or off")),
                };
                let known = [
                    "freelist_random",
                    "freelist_hardened",
                    "slab_nomerge",
                    "slab_legacy_refill",
                    "random_kmalloc_caches",
                ];
                match name.as_str() {
                    "random_kmalloc_caches" => {
                        self.require_version_2(line.number, col, "switch random_kmalloc_caches")?;
                        self.switches.random_kmalloc_caches = on;
                        self.random_kmalloc_line = on.then_some((line.number, col));
                    }
                    "freelist_random" => self.switches.freelist_random = on,
                    "freelist_hardened" => self.switches.freelist_hardened = on,
                    "slab_nomerge" => self.switches.slab_nomerge = on,
                    "slab_legacy_refill" => self.switches.slab_legacy_refill = on,
                    _ => {
                        let message = format!("unknown switch '{name}'");
                        let e = match closest(&name, &known) {
                            Some(k) => ParseError::new(
                                line.number,
                                col,
                                "scenario.unknown_switch_did_you_mean",
                                message,
                            )
                            .arg("switch", &name)
                            .arg("suggestion", k)
                            .hint(format!("did you mean {k}?")),
                            None => ParseError::new(
                                line.number,
                                col,
                                "scenario.unknown_switch",
                                message,
                            )
                            .arg("switch", &name)
                            .arg("known", known.join(", "))
                            .hint(format!("switches: {}", known.join(", "))),
                        };
                        return Err(e);
                    }
                }
                line.finish()
            }
            "slub_debug" => {
                line.pos += 1;
                let col = line.col();
                let letters = line.word(
                    "scenario.expected_slub_debug",
                    "slub_debug letters such as FZPU, or off",
                )?;
                let mut flags = SlubDebug::default();
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
                                .arg("letter", c)
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
                                single_num(line, &key, col, &value, MAX_MIN_OBJECTS)? as u32
                        }
                        "slub_max_order" => {
                            self.switches.slub_max_order =
                                Some(single_num(line, &key, col, &value, MAX_ORDER)? as u32)
                        }
                        "slub_min_order" => {
                            self.switches.slub_min_order =
                                single_num(line, &key, col, &value, MAX_ORDER)? as u32
                        }
                        "slab_max_order" => {
                            self.switches.slab_max_order =
                                Some(single_num(line, &key, col, &value, MAX_ORDER)? as u32)
                        }
                        _ => {
                            return Err(ParseError::new(
                                line.number,
                                col,
                                "scenario.unknown_boot_setting",
                                format!("unknown boot parameter '{key}'"),
                            )
                            .arg("setting", &key)
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
                self.seed = line.number("scenario.expected_seed", "the seed")?;
                line.finish()
            }
            "cache" => {
                line.pos += 1;
                self.cache_line(line)
            }
            // Format 2; `print = …` and `print[] = …` still name a result.
            "print" if !matches!(line.tok_at(1), Some(Tok::Sym('=' | '['))) => {
                self.print_line(line)
            }
            _ if self.list_line_ahead(line) => self.list_line(line),
            _ => self.op_line(line),
        }
    }

    fn machine_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        if self.machine.is_some() {
            return Err(line.err(
                "scenario.duplicate_machine",
                "a scenario has one machine line",
            ));
        }
        let (mut cpus, mut nodes, mut page_size, mut memory, mut pages, mut cpu_node) =
            (None, 1u32, 4096u32, None, None, Vec::new());
        for (key, col, value) in line.pairs()? {
            match key.as_str() {
                "cpus" => {
                    cpus = Some(single_num(line, &key, col, &value, u64::from(MAX_CPUS))? as u32)
                }
                "nodes" => {
                    nodes = single_num(line, &key, col, &value, u64::from(MAX_NODES))? as u32
                }
                "page_size" => page_size = single_num(line, &key, col, &value, 1 << 20)? as u32,
                "memory" => memory = Some((single_num(line, &key, col, &value, 1 << 40)?, col)),
                "pages_per_node" => {
                    pages = Some(
                        single_num(line, &key, col, &value, u64::from(MAX_PAGES_PER_NODE))? as u32,
                    )
                }
                "cpu_node" => {
                    for t in &value {
                        match t.tok {
                            Tok::Num(n) if n < u64::from(MAX_NODES) => cpu_node.push(n as u32),
                            _ => {
                                return Err(ParseError::new(
                                    line.number,
                                    col,
                                    "scenario.bad_cpu_node",
                                    "cpu_node is a list of node numbers, one per CPU, e.g. cpu_node=0,0,1,1"
                                        .to_string(),
                                ))
                            }
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
                    let message = format!("unknown machine setting '{key}'");
                    return Err(match closest(&key, &known) {
                        Some(k) => ParseError::new(
                            line.number,
                            col,
                            "scenario.unknown_machine_setting_did_you_mean",
                            message,
                        )
                        .arg("setting", &key)
                        .arg("suggestion", k)
                        .hint(format!("did you mean {k}?")),
                        None => ParseError::new(
                            line.number,
                            col,
                            "scenario.unknown_machine_setting",
                            message,
                        )
                        .arg("setting", &key),
                    });
                }
            }
        }
        let cpus = cpus.ok_or_else(|| {
            ParseError::new(
                line.number,
                1,
                "scenario.missing_cpus",
                "the machine line needs cpus=N".into(),
            )
            .hint("e.g. machine cpus=2 nodes=1 memory=16M")
        })?;
        let pages_per_node = match (memory, pages) {
            (Some(_), Some(_)) => {
                return Err(ParseError::new(
                    line.number,
                    1,
                    "scenario.memory_and_pages",
                    "give memory= or pages_per_node=, not both".into(),
                ))
            }
            (Some((bytes, col)), None) => {
                if page_size == 0
                    || bytes % u64::from(page_size) != 0
                    || bytes / u64::from(page_size) > u64::from(MAX_PAGES_PER_NODE)
                    || bytes == 0
                {
                    return Err(ParseError::new(
                        line.number,
                        col,
                        "scenario.memory",
                        format!(
                            "memory={bytes} is not a whole number of pages (at most 2^20 pages a node)"
                        ),
                    )
                    .arg("memory", bytes));
                }
                (bytes / u64::from(page_size)) as u32
            }
            (None, Some(p)) => p,
            (None, None) => 4096,
        };
        let config = MachineDecl {
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
            .map_err(|e| machine_error(line.number, &e))?;
        self.machine = Some(config);
        Ok(())
    }

    fn cache_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
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
                "flags" => {
                    for t in &value {
                        let f = &mut decl.flags;
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
                            Tok::Word(w) if w == "reclaim_account" => {
                                Some(&mut f.reclaim_account)
                            }
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
                }
                _ => {
                    return Err(ParseError::new(
                        line.number,
                        col,
                        "scenario.unknown_cache_setting",
                        format!("unknown cache setting '{key}'"),
                    )
                    .arg("setting", &key)
                    .hint(
                        "cache NAME size=N [align=N] [flags=hwcache_align,typesafe_by_rcu,...] [ctor] [usersize=N useroffset=N]",
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

    fn op_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let machine = self.machine.clone().ok_or_else(|| {
            line.err(
                "scenario.op_before_machine",
                "operations must come after the machine line",
            )
        })?;
        let mut repeat = 1;
        if line.peek() == Some(&Tok::Word("repeat".into())) {
            line.pos += 1;
            repeat = line.bounded(&REPEAT_COUNT, MAX_REPEAT)? as u32;
            if repeat == 0 {
                return Err(line
                    .err("scenario.repeat_zero", "repeat 0 runs nothing")
                    .hint("remove the line or use a count of 1 or more"));
            }
        }
        let mut for_each = None;
        if line.peek() == Some(&Tok::Word("for".into())) {
            line.pos += 1;
            let var = line.word("scenario.expected_loop_name", "a name for each element")?;
            if line.peek() != Some(&Tok::Word("in".into())) {
                return Err(line.err("scenario.expected_in", "expected `in`"));
            }
            line.pos += 1;
            let list = self.loop_list(line)?;
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
        // A list line or a `print` after `repeat`/`for`: refused here, by name.
        self.statement_after_prefix(line, target.is_some())?;
        let col = line.col();
        let name = line.word(
            "scenario.expected_operation",
            "an operation such as kmalloc(64)",
        )?;
        if !OPS.contains(&name.as_str()) {
            let message = format!("unknown operation or directive '{name}'");
            let mut known: Vec<&str> = OPS.to_vec();
            known.extend_from_slice(DIRECTIVES);
            return Err(match closest(&name, &known) {
                Some(k) => ParseError::new(
                    line.number,
                    col,
                    "scenario.unknown_operation_did_you_mean",
                    message,
                )
                .arg("name", &name)
                .arg("suggestion", k)
                .hint(format!("did you mean {k}?")),
                None => ParseError::new(line.number, col, "scenario.unknown_operation", message)
                    .arg("name", &name)
                    .hint("see docs/scenario-format.md for the operations"),
            });
        }
        line.expect_sym('(')?;
        let mut op = self.call(&name, line, &machine)?;
        line.expect_sym(')')?;
        if let Some(what) = format_2_call(&op) {
            self.require_version_2(line.number, col, what)?;
        }
        self.call_site(line, &mut op)?;
        let on_col = line.col();
        let cpu = if line.peek() == Some(&Tok::Word("on".into())) {
            line.pos += 1;
            let col = line.col();
            let w = line.word("scenario.expected_cpu", "a CPU such as cpu0")?;
            let cpu = w
                .strip_prefix("cpu")
                .and_then(|n| n.parse::<u32>().ok())
                .ok_or_else(|| {
                    ParseError::new(
                        line.number,
                        col,
                        "scenario.bad_cpu",
                        format!("'{w}' is not a CPU"),
                    )
                    .arg("cpu", &w)
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
                .arg("cpus", machine.cpus)
                .arg("last", machine.cpus - 1)
                .hint(format!("use cpu0 to cpu{}", machine.cpus - 1)));
            }
            Some(cpu)
        } else {
            None
        };
        self.call_site(line, &mut op)?;
        line.finish()?;
        if cpu.is_some() {
            no_cpu_wanted(&op, &name, line.number, on_col)?;
        }
        let needs_cpu = !matches!(
            op,
            Op::FlushAll { .. }
                | Op::KmemCacheShrink { .. }
                | Op::KmemCacheDestroy { .. }
                | Op::CacheReap
                | Op::KfreeRcuMonitor
                | Op::SynchronizeRcu
                | Op::RcuBarrier
        );
        if needs_cpu && cpu.is_none() {
            return Err(ParseError::new(
                line.number,
                line.end_col,
                "scenario.no_cpu",
                format!("{name} needs the CPU it runs on"),
            )
            .arg("operation", &name)
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
                )
                .arg("operation", &name))
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
                        .arg("name", n)
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

    /// A reference to earlier results: `a`, `t[3]`, `t[2..5]`.
    fn obj_ref(&self, line: &mut Line, list: bool) -> Result<Ref, ParseError> {
        let col = line.col();
        let name = line.word(
            "scenario.expected_result_name",
            "a name given to an earlier result",
        )?;
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
            let start = line.bounded(&INDEX, u64::from(u32::MAX))? as u32;
            let r = if line.peek() == Some(&Tok::DotDot) {
                line.pos += 1;
                let end = line.bounded(&RANGE_END, u64::from(u32::MAX))? as u32;
                if end <= start {
                    return Err(line
                        .err(
                            "scenario.range",
                            format!("the range {start}..{end} is empty"),
                        )
                        .arg("start", start)
                        .arg("end", end));
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
                    "scenario.expected_object_not_range",
                    "a single object is expected here, not a range".into(),
                ));
            }
            return Ok(r);
        }
        if list && !is_list {
            return Err(ParseError::new(
                line.number,
                col,
                "scenario.expected_list",
                format!("'{name}' is a single result; a list is expected here"),
            )
            .arg("name", &name));
        }
        if !list && is_list {
            return Err(ParseError::new(
                line.number,
                col,
                "scenario.expected_object",
                format!("'{name}' is a list; pick one element, e.g. {name}[0]"),
            )
            .arg("name", &name));
        }
        Ok(Ref::Name { name })
    }

    /// gfp flags (format 2), checked by name first, then refused in a format 1 file.
    fn gfp_flags(&self, line: &mut Line) -> Result<Gfp, ParseError> {
        let col = line.col();
        let gfp = gfp_names(line)?;
        self.require_version_2(line.number, col, "kmalloc(SIZE, GFP)")?;
        Ok(gfp)
    }

    fn call(&self, name: &str, line: &mut Line, machine: &MachineDecl) -> Result<Op, ParseError> {
        // A node number that must exist on this machine.
        let node = |line: &mut Line| -> Result<u32, ParseError> {
            let col = line.col();
            let n = line.bounded(&NODE, 64)? as u32;
            if n >= machine.nodes {
                return Err(ParseError::new(
                    line.number,
                    col,
                    "scenario.node",
                    format!(
                        "node {n} does not exist: the machine has {} nodes",
                        machine.nodes
                    ),
                )
                .arg("node", n)
                .arg("nodes", machine.nodes));
            }
            Ok(n)
        };
        Ok(match name {
            "kmalloc" => {
                let size = line.bounded(&SIZE, 1 << 40)?;
                let gfp = if line.eat_sym(',') {
                    self.gfp_flags(line)?
                } else {
                    GFP_KERNEL
                };
                Op::Kmalloc {
                    size,
                    node: None,
                    gfp,
                    site: None,
                }
            }
            "kmalloc_node" => {
                // kmalloc_node(size, flags, node) as in the kernel; kmalloc_node(size, node)
                // is the older form, with GFP_KERNEL. A second argument that is not a gfp
                // name is a bad node, as it always was.
                let size = line.bounded(&SIZE, 1 << 40)?;
                line.expect_sym(',')?;
                let gfp_next = matches!(line.peek(),
                    Some(Tok::Word(w)) if w.starts_with("GFP_") || w.starts_with("__GFP_"));
                let gfp = if gfp_next {
                    let gfp = self.gfp_flags(line)?;
                    line.expect_sym(',')?;
                    gfp
                } else {
                    GFP_KERNEL
                };
                Op::Kmalloc {
                    size,
                    node: Some(node(line)?),
                    gfp,
                    site: None,
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
                    count: line.bounded(&COUNT, MAX_BULK)? as u32,
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
                order: line.bounded(&ORDER, MAX_ORDER)? as u8,
                node: None,
            },
            "alloc_pages_node" => {
                let n = node(line)?;
                line.expect_sym(',')?;
                Op::AllocPages {
                    order: line.bounded(&ORDER, MAX_ORDER)? as u8,
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
            "kfree_rcu" | "kfree_rcu_mightsleep" => Op::KfreeRcu {
                obj: self.obj_ref(line, false)?,
                mightsleep: name == "kfree_rcu_mightsleep",
            },
            "kfree_rcu_monitor" => Op::KfreeRcuMonitor,
            "synchronize_rcu" => Op::SynchronizeRcu,
            "rcu_barrier" => Op::RcuBarrier,
            _ => unreachable!("checked against OPS"),
        })
    }

    fn finish(self) -> Result<Scenario, ParseError> {
        let machine = self.machine.ok_or_else(|| {
            ParseError::new(
                1,
                1,
                "scenario.missing_machine",
                "the scenario has no machine line".into(),
            )
            .hint("add e.g. `machine cpus=2 nodes=1 memory=16M` after the first line")
        })?;
        let allocator = self.allocator.unwrap_or(Allocator::Slub);
        if let (Allocator::Slab, Some((line, col))) = (allocator, self.random_kmalloc_line) {
            // mm/Kconfig, v6.6: RANDOM_KMALLOC_CACHES depends on SLUB && !SLUB_TINY.
            return Err(ParseError::new(
                line,
                col,
                "scenario.random_kmalloc_caches_slab",
                "random_kmalloc_caches needs SLUB: CONFIG_RANDOM_KMALLOC_CACHES depends on SLUB"
                    .into(),
            )
            .hint("remove the switch, or use `allocator slub`"));
        }
        Ok(Scenario {
            version: self.version,
            profile: self.profile.unwrap_or_else(|| PROFILES[0].to_string()),
            allocator,
            machine,
            switches: self.switches,
            seed: self.seed,
            caches: self.caches,
            ops: self.ops,
            statements: self.statements,
        })
    }
}
