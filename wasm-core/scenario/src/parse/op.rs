//! Operation lines: `[repeat N] [for x in LIST:] [a = | a[] =] CALL(ARGS) [at SITE] [on cpuN]`,
//! each call with the kernel function's own arguments, and the references to earlier results
//! they take.

use super::line::{Line, COUNT, INDEX, NODE, ORDER, RANGE_END, REPEAT_COUNT, SIZE};
use super::{Parser, DIRECTIVES};
use crate::ast::{ListExpr, Op, OpLine, Ref, Target, TaskSlot};
use crate::error::{closest, ParseError};
use crate::gfp::{Gfp, GfpRefusal, GFP_KERNEL, GFP_NAMES, GFP_REFUSED};
use crate::lex::Tok;
use crate::limits::{MAX_BULK, MAX_ORDER, MAX_REPEAT};
use crate::machine::MachineDecl;

pub(super) const OPS: &[&str] = &[
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

impl Parser {
    /// `at SITE` after a kmalloc call (before or after `on cpuN`): the name of the call site, whose
    /// address `kmalloc_type()` hashes with random kmalloc caches.
    pub(super) fn call_site(&self, line: &mut Line, op: &mut Op) -> Result<(), ParseError> {
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

    pub(super) fn op_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let machine = self.machine.clone().ok_or_else(|| {
            line.err(
                "scenario.op_before_machine",
                "operations must come after the machine line",
            )
        })?;
        let (repeat, for_each) = self.op_prefix(line)?;
        // Target: `a =` or `a[] =`.
        let target = op_target(line)?;
        // A list line or a `print` after `repeat`/`for`: refused here, by name.
        self.statement_after_prefix(line, target.is_some())?;
        let (name, col) = op_name(line)?;
        line.expect_sym('(')?;
        let mut op = self.call(&name, line, &machine)?;
        line.expect_sym(')')?;
        if let Some(what) = format_2_call(&op) {
            self.require_version_2(line.number, col, what)?;
        }
        self.call_site(line, &mut op)?;
        let on_col = line.col();
        let cpu = on_cpu(line, &machine)?;
        let task = if cpu.is_some() {
            self.task_slot(line)?
        } else {
            TaskSlot::Main
        };
        self.call_site(line, &mut op)?;
        line.finish()?;
        if self.block.is_some() && cpu.is_none() {
            return Err(ParseError::new(
                line.number,
                line.end_col,
                "scenario.block_needs_cpu",
                format!("{name} in a concurrent block needs the CPU it runs on"),
            )
            .arg("operation", &name)
            .hint("add `on cpu0` (or another CPU); operations of every CPU go outside the block"));
        }
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
        self.name_result(line, target.as_ref(), repeat, &op, &name)?;
        self.ops.push(OpLine {
            line: line.number,
            repeat,
            for_each,
            target,
            op,
            cpu,
            task,
        });
        Ok(())
    }

    /// A reference to earlier results: `a`, `t[3]`, `t[2..5]`.
    pub(super) fn obj_ref(&self, line: &mut Line, list: bool) -> Result<Ref, ParseError> {
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
    pub(super) fn gfp_flags(&self, line: &mut Line) -> Result<Gfp, ParseError> {
        let col = line.col();
        let gfp = gfp_names(line)?;
        self.require_version_2(line.number, col, "kmalloc(SIZE, GFP)")?;
        Ok(gfp)
    }

    #[allow(
        clippy::too_many_lines,
        reason = "one arm per operation, each reading that kernel function's arguments in its order"
    )]
    pub(super) fn call(
        &self,
        name: &str,
        line: &mut Line,
        machine: &MachineDecl,
    ) -> Result<Op, ParseError> {
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

    /// `repeat N` and `for x in LIST:` before an operation: the count (1 without `repeat`) and
    /// the loop, whose name is known from here on.
    fn op_prefix(
        &mut self,
        line: &mut Line,
    ) -> Result<(u32, Option<(String, ListExpr)>), ParseError> {
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
        Ok((repeat, for_each))
    }

    /// Checks what `target` names with this operation's result and records the name (a list
    /// after `a[] =`, after a bulk allocation).
    fn name_result(
        &mut self,
        line: &Line,
        target: Option<&Target>,
        repeat: u32,
        op: &Op,
        name: &str,
    ) -> Result<(), ParseError> {
        let returns = matches!(
            op,
            Op::Kmalloc { .. }
                | Op::KmemCacheAlloc { .. }
                | Op::KmemCacheAllocBulk { .. }
                | Op::AllocPages { .. }
        );
        match target {
            Some(_) if !returns => {
                return Err(ParseError::new(
                    line.number,
                    1,
                    "scenario.no_result",
                    format!("{name} returns nothing to name"),
                )
                .arg("operation", name))
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
        Ok(())
    }
}

/// `a =` or `a[] =` at the start of an operation (after any `repeat` and `for`).
fn op_target(line: &mut Line) -> Result<Option<Target>, ParseError> {
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
    Ok(target)
}

/// The operation's name, one of `OPS`, and its column.
fn op_name(line: &mut Line) -> Result<(String, u32), ParseError> {
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
    Ok((name, col))
}

/// `on cpuN`, a CPU of `machine`, if the line says one.
fn on_cpu(line: &mut Line, machine: &MachineDecl) -> Result<Option<u32>, ParseError> {
    Ok(if line.peek() == Some(&Tok::Word("on".into())) {
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
    })
}
