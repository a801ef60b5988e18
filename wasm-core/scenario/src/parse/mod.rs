//! The scenario parser: line by line, each line one directive, one operation or (format 2)
//! one statement: a list line or a `print`. See docs/scenario-format.md for the format.
//!
//! By concern: this file reads the first line and hands each later line to its reader;
//! `line.rs` is the cursor over one line's tokens and its bounded numbers; `header.rs` reads
//! the lines that choose the kernel (`profile`, `allocator`, `switch`, `slub_debug`, `boot`);
//! `machine.rs` the `machine` and `pcp` lines; `cache.rs` the `cache` lines; `op.rs` the
//! operation lines; `statement.rs` format 2's list lines and `print`.
//!
//! Versions: a file says its format on its first line. Format 2 only adds what format 1
//! refused: list lines and `print` (parse/statement.rs), gfp flags and `at SITE` on kmalloc
//! calls, the RCU operations, `switch random_kmalloc_caches`, and the cache options
//! `usersize=`/`useroffset=` and flags `account`, `reclaim_account`, `cache_dma`,
//! `cache_dma32`, `no_merge`. A format 1 file parses exactly as it always did; each new form in
//! a format 1 file is parsed (so a wrong name is still named as such) and then refused with
//! `scenario.needs_version` where it stands, naming the first line to write.

mod block;
mod cache;
mod header;
mod line;
mod machine;
mod op;
mod statement;

use crate::ast::{Allocator, Block, CacheDecl, OpLine, Scenario, StatementLine, Switches};
use crate::error::ParseError;
use crate::lex::{lex, Tok};
use crate::limits::MAX_TEXT;
use crate::machine::MachineDecl;
use block::OpenBlock;
use line::Line;
use op::OPS;
use std::collections::BTreeSet;

/// The first line of every scenario, before the version number.
pub const MAGIC: &str = "slabscope-scenario";
/// The newest format version this parser reads, which new scenarios are offered.
pub const VERSION: u32 = 3;
/// Every format version this parser reads, oldest first.
pub const VERSIONS: &[u32] = &[1, 2, 3];
/// Kernel profiles this build replays.
pub const PROFILES: &[&str] = &["linux-6.6", "linux-6.12", "linux-6.18", "linux-7.2"];
/// The `kmem_cache_args` fields a `cache` line may give, with the first profile that has each.
pub const CACHE_ARGS_SINCE: &[(&str, &str)] = &[
    ("freeptr_offset", "linux-6.12"),
    ("sheaf_capacity", "linux-6.18"),
];

/// The profiles whose kernel has no SLAB, with the release that removed it.
pub const SLAB_REMOVED: &[(&str, &str)] = &[
    ("linux-6.12", "6.8"),
    ("linux-6.18", "6.8"),
    ("linux-7.2", "6.8"),
];

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
    "concurrent",
    "end",
    "schedule",
    "teaching",
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
    /// Where the `allocator` line's word is, to refuse SLAB under a profile without it.
    allocator_at: Option<(u32, u32)>,
    /// `kmem_cache_args` fields given on `cache` lines (line, column, field), to refuse them
    /// under a profile whose kernel has no such field.
    later_args: Vec<(u32, u32, &'static str)>,
    /// The `concurrent` block being read, and those closed.
    block: Option<OpenBlock>,
    blocks: Vec<Block>,
    teaching_no_tid: bool,
}

impl Parser {
    fn line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let Some(Tok::Word(first)) = line.peek().cloned() else {
            return Err(line.err(
                "scenario.expected_directive",
                "expected a directive or an operation at the start of the line",
            ));
        };
        let directive = [
            "profile",
            "allocator",
            "machine",
            "pcp",
            "switch",
            "slub_debug",
            "boot",
            "seed",
            "cache",
            "teaching",
        ];
        if directive.contains(&first.as_str()) {
            self.outside_block(line, &first)?;
        }
        match first.as_str() {
            "concurrent" => self.concurrent_line(line),
            "end" if line.toks.len() == 1 => self.end_line(line),
            "schedule" if !matches!(line.tok_at(1), Some(Tok::Sym('=' | '['))) => {
                self.schedule_line(line)
            }
            "teaching" => self.teaching_line(line),
            "profile" => {
                line.pos += 1;
                self.profile_line(line)
            }
            "allocator" => {
                line.pos += 1;
                self.allocator_line(line)
            }
            "machine" => {
                line.pos += 1;
                self.machine_line(line)
            }
            "pcp" => {
                line.pos += 1;
                self.pcp_line(line)
            }
            "switch" => {
                line.pos += 1;
                self.switch_line(line)
            }
            "slub_debug" => {
                line.pos += 1;
                self.slub_debug_line(line)
            }
            "boot" => {
                line.pos += 1;
                self.boot_line(line)
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
                self.outside_block(line, "print")?;
                self.print_line(line)
            }
            _ if self.list_line_ahead(line) => {
                self.outside_block(line, "a list line")?;
                self.list_line(line)
            }
            _ => self.op_line(line),
        }
    }

    fn finish(self) -> Result<Scenario, ParseError> {
        if let Some(open) = &self.block {
            return Err(ParseError::new(
                open.line,
                1,
                "scenario.block_not_closed",
                "this concurrent block has no `end`".into(),
            )
            .hint("add a line `end` after its last operation"));
        }
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
        let profile = self.profile.unwrap_or_else(|| PROFILES[0].to_string());
        let rank = |p: &str| PROFILES.iter().position(|q| *q == p);
        for &(line, col, field) in &self.later_args {
            let since = CACHE_ARGS_SINCE
                .iter()
                .find(|(f, _)| *f == field)
                .map_or("", |(_, p)| *p);
            let lacks = match (rank(&profile), rank(since)) {
                (Some(have), Some(need)) => have < need,
                // A field whose first profile this build does not replay yet.
                (_, None) => true,
                (None, _) => false,
            };
            if lacks {
                return Err(ParseError::new(
                    line,
                    col,
                    "scenario.cache_arg_version",
                    format!(
                        "{field}= is a kmem_cache_args field from {since} on; {profile} has none"
                    ),
                )
                .arg("field", field)
                .arg("since", since)
                .arg("profile", &profile)
                .hint(format!(
                    "remove {field}=, or run a later profile (`profile {since}`)"
                )));
            }
        }
        if let (Allocator::Slab, Some((line, col))) = (allocator, self.allocator_at) {
            if let Some((_, removed)) = SLAB_REMOVED.iter().find(|(p, _)| *p == profile) {
                return Err(ParseError::new(
                    line,
                    col,
                    "scenario.allocator_removed",
                    format!(
                        "{profile} has no SLAB: it was removed in Linux {removed}, and SLUB is \
                         the only slab allocator since"
                    ),
                )
                .arg("profile", &profile)
                .arg("removed", *removed)
                .hint("use `allocator slub`, or `profile linux-6.6` to run SLAB"));
            }
        }
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
            profile,
            allocator,
            machine,
            switches: self.switches,
            seed: self.seed,
            caches: self.caches,
            ops: self.ops,
            statements: self.statements,
            blocks: self.blocks,
            teaching_no_tid: self.teaching_no_tid,
        })
    }
}
