//! The `machine` line (CPUs, nodes, page size, memory, CPU-to-node map) and the `pcp` line,
//! checked against the language's machine limits where they stand.

use super::line::{single_num, Line};
use super::Parser;
use crate::error::{closest, ParseError};
use crate::lex::Tok;
use crate::limits::{MAX_CPUS, MAX_NODES, MAX_PAGES_PER_NODE};
use crate::machine::{MachineDecl, MachineError};

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

/// Pages per node from `memory=` (bytes, with its column) or `pages_per_node=`, at most one of
/// them; 4096 pages when neither is given.
fn pages_per_node(
    line: u32,
    memory: Option<(u64, u32)>,
    pages: Option<u32>,
    page_size: u32,
) -> Result<u32, ParseError> {
    Ok(match (memory, pages) {
        (Some(_), Some(_)) => {
            return Err(ParseError::new(
                line,
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
                    line,
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
    })
}

impl Parser {
    pub(super) fn machine_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
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
        let pages_per_node = pages_per_node(line.number, memory, pages, page_size)?;
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

    /// `pcp batch=N high=N`, after the machine line: the per-CPU page lists' sizes.
    pub(super) fn pcp_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
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
}
