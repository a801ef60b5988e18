//! The simulated machine's shape: CPUs, NUMA nodes, page size and memory per node.

use crate::geometry::platform::{PageGeometry, MAX_CPUS};
use crate::ids::{CpuId, NodeId};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Most NUMA nodes a machine may have.
pub const MAX_NODES: u32 = 4;
/// Most pages one node may hold (keeps every pfn in a u32 and the page-frame map drawable).
pub const MAX_PAGES_PER_NODE: u32 = 1 << 20;

/// What a scenario says about the machine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(deny_unknown_fields)]
pub struct MachineConfig {
    /// Number of CPUs (1..=64).
    pub cpus: u32,
    /// Number of NUMA nodes (1..=4).
    pub nodes: u32,
    /// The node of each CPU; empty means CPUs are spread over nodes in consecutive runs.
    #[serde(default)]
    pub cpu_node: Vec<u32>,
    /// `PAGE_SIZE`: 4096, 16384 or 65536.
    pub page_size: u32,
    /// Pages of memory on each node.
    pub pages_per_node: u32,
    /// Overrides the per-CPU page list `batch` that `zone_batchsize()` would pick. Small
    /// teaching machines get a `batch` of 0 from the kernel formula (the pcp lists then stay
    /// unused), so scenarios may set one; a simulator knob, not a kernel one.
    #[serde(default)]
    pub pcp_batch: Option<u32>,
    /// Overrides the per-CPU page list `high` that `zone_highsize()` would pick (as
    /// `percpu_pagelist_high_fraction` lets an administrator change it).
    #[serde(default)]
    pub pcp_high: Option<u32>,
}

impl MachineConfig {
    /// Whether `cpu` is one of this machine's CPUs (`cpu_possible()`).
    #[inline]
    pub fn has_cpu(&self, cpu: CpuId) -> bool {
        u32::from(cpu) < self.cpus
    }

    /// Whether `node` is one of this machine's nodes (`node_possible()`).
    #[inline]
    pub fn has_node(&self, node: NodeId) -> bool {
        u32::from(node) < self.nodes
    }
}

/// Why a machine cannot be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    Cpus(u32),
    Nodes(u32),
    PageSize(u32),
    Pages(u32),
    CpuNodeLength { expected: u32, got: usize },
    CpuNode { cpu: u32, node: u32 },
    NodeWithoutCpu(u32),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Cpus(n) => write!(f, "{n} CPUs: a machine has 1 to {MAX_CPUS}"),
            ConfigError::Nodes(n) => write!(f, "{n} nodes: a machine has 1 to {MAX_NODES}"),
            ConfigError::PageSize(p) => {
                write!(f, "page size {p} is not modelled: use 4096, 16384 or 65536")
            }
            ConfigError::Pages(p) => write!(f, "{p} pages per node: use 1 to {MAX_PAGES_PER_NODE}"),
            ConfigError::CpuNodeLength { expected, got } => write!(
                f,
                "the CPU-to-node list has {got} entries for {expected} CPUs"
            ),
            ConfigError::CpuNode { cpu, node } => {
                write!(f, "cpu{cpu} is put on node {node}, which does not exist")
            }
            ConfigError::NodeWithoutCpu(n) => write!(
                f,
                "node {n} has no CPU (memory-only nodes are not modelled)"
            ),
        }
    }
}

impl std::error::Error for ConfigError {}

impl MachineConfig {
    /// Checks the shape and returns the node of every CPU.
    pub fn validate(&self) -> Result<(PageGeometry, Vec<u32>), ConfigError> {
        if !(1..=MAX_CPUS).contains(&self.cpus) {
            return Err(ConfigError::Cpus(self.cpus));
        }
        if !(1..=MAX_NODES).contains(&self.nodes) {
            return Err(ConfigError::Nodes(self.nodes));
        }
        let page =
            PageGeometry::new(self.page_size).map_err(|_| ConfigError::PageSize(self.page_size))?;
        if !(1..=MAX_PAGES_PER_NODE).contains(&self.pages_per_node) {
            return Err(ConfigError::Pages(self.pages_per_node));
        }
        let cpu_node: Vec<u32> = if self.cpu_node.is_empty() {
            // Consecutive runs of (nearly) equal length, every node getting at least one CPU
            // when there are enough CPUs.
            (0..self.cpus).map(|c| c * self.nodes / self.cpus).collect()
        } else {
            if self.cpu_node.len() != self.cpus as usize {
                return Err(ConfigError::CpuNodeLength {
                    expected: self.cpus,
                    got: self.cpu_node.len(),
                });
            }
            self.cpu_node.clone()
        };
        for (cpu, &node) in cpu_node.iter().enumerate() {
            if node >= self.nodes {
                return Err(ConfigError::CpuNode {
                    cpu: cpu as u32,
                    node,
                });
            }
        }
        for node in 0..self.nodes {
            if !cpu_node.contains(&node) {
                return Err(ConfigError::NodeWithoutCpu(node));
            }
        }
        Ok((page, cpu_node))
    }
}
