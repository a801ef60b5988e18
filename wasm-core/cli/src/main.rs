//! `slabscope`: the simulator from the terminal, the interface other tools and tests call.
//!
//! Rules: arguments are parsed by clap (its errors exit 2); a request the kernel would refuse
//! prints `error: <reason>` on stderr and exits 1; output goes to stdout only on success.

use clap::{Args, Parser, Subcommand};
use slabscope_sim::geometry::{CacheGeometry, CacheRequest, CacheSource, SlabFlags};
use std::process::ExitCode;

mod compare;
mod explore;
mod live;
mod run;
mod snapshot;
mod sweep;
mod workload;

#[derive(Parser)]
#[command(
    name = "slabscope",
    version,
    about = "The Linux kernel's slab allocators (6.6, 6.12, 6.18, 7.2), simulated"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Layout of one SLUB cache as kmem_cache_create() would set it up (Linux 6.6, or --profile).
    Geometry(GeometryArgs),
    /// Geometry of every size x CPU count x page size of a grid, on N threads.
    Sweep(sweep::SweepArgs),
    /// Run a scenario file and print its trace and kernel files.
    Run(run::RunArgs),
    /// Run a scenario under SLUB and under SLAB (or two kernel profiles) side by side.
    Compare(compare::CompareArgs),
    /// Run every schedule of a scenario's concurrent block within bounds, grouped by outcome.
    Explore(explore::ExploreArgs),
    /// Print the visualizer's view data at one step as JSON (or one object's or page's life).
    Snapshot(snapshot::SnapshotArgs),
    /// Time the standard workload of `npm run bench` (docs/bench.md) and print JSON.
    Workload(workload::WorkloadArgs),
    /// Run the standard workload with each CPU on its own thread, replay it, and print JSON.
    Live(live::LiveArgs),
}

/// `SLAB_*` creation flags and `slub_debug` letters.
#[derive(Args)]
struct FlagArgs {
    /// SLAB_HWCACHE_ALIGN.
    #[arg(long)]
    hwcache_align: bool,
    /// The cache has a constructor (the free pointer moves after the object).
    #[arg(long)]
    ctor: bool,
    /// SLAB_TYPESAFE_BY_RCU.
    #[arg(long)]
    rcu: bool,
    /// SLAB_POISON (slub_debug=P).
    #[arg(long)]
    poison: bool,
    /// SLAB_RED_ZONE (slub_debug=Z).
    #[arg(long)]
    red_zone: bool,
    /// SLAB_STORE_USER (slub_debug=U).
    #[arg(long)]
    store_user: bool,
    /// SLAB_CONSISTENCY_CHECKS (slub_debug=F).
    #[arg(long)]
    sanity_checks: bool,
}

impl FlagArgs {
    fn slab_flags(&self) -> SlabFlags {
        SlabFlags {
            hwcache_align: self.hwcache_align,
            typesafe_by_rcu: self.rcu,
            poison: self.poison,
            red_zone: self.red_zone,
            store_user: self.store_user,
            consistency_checks: self.sanity_checks,
            ..SlabFlags::default()
        }
    }
}

/// Boot parameters of SLUB.
#[derive(Args)]
struct BootArgs {
    /// Boot parameter slub_min_objects= (0: derived from the CPU count).
    #[arg(long, default_value_t = 0, value_name = "N")]
    slub_min_objects: u32,
    /// Boot parameter slub_max_order= (default PAGE_ALLOC_COSTLY_ORDER, 3).
    #[arg(long, value_name = "N")]
    slub_max_order: Option<u32>,
    /// Boot parameter slub_min_order=.
    #[arg(long, default_value_t = 0, value_name = "N")]
    slub_min_order: u32,
}

#[derive(Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["object_size", "kmalloc"])))]
struct GeometryArgs {
    /// Object size in bytes of a kmem_cache_create() cache.
    #[arg(long, value_name = "N")]
    object_size: Option<u32>,
    /// Describe the kmalloc cache that serves kmalloc(N) instead.
    #[arg(long, value_name = "N", conflicts_with_all = ["align", "hwcache_align", "ctor", "rcu"])]
    kmalloc: Option<u32>,
    /// The align argument of kmem_cache_create() (a power of two).
    #[arg(long, value_name = "A")]
    align: Option<u32>,
    #[command(flatten)]
    flags: FlagArgs,
    /// PAGE_SIZE: 4096, 16384 or 65536.
    #[arg(long, default_value_t = 4096)]
    page_size: u32,
    /// Present CPUs (1-64).
    #[arg(long, default_value_t = 1)]
    cpus: u32,
    #[command(flatten)]
    boot: BootArgs,
    /// The kernel whose kmem_cache_create() lays it out: linux-6.6 (default), linux-6.12,
    /// linux-6.18 or linux-7.2.
    #[arg(long, default_value = "linux-6.6")]
    profile: String,
    /// 6.12+: the freeptr_offset of kmem_cache_create()'s args (SLAB_TYPESAFE_BY_RCU caches;
    /// 7.0+ also with a constructor).
    #[arg(long, value_name = "N")]
    freeptr_offset: Option<u32>,
    /// 6.18+: the sheaf_capacity of kmem_cache_create()'s args.
    #[arg(long, value_name = "N")]
    sheaf_capacity: Option<u32>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

impl GeometryArgs {
    fn request(&self) -> CacheRequest {
        let source = match (self.object_size, self.kmalloc) {
            (_, Some(request_size)) => CacheSource::Kmalloc { request_size },
            (Some(object_size), None) => CacheSource::Object { object_size },
            (None, None) => unreachable!("clap requires one of --object-size and --kmalloc"),
        };
        CacheRequest {
            source,
            align: self.align.unwrap_or(0),
            flags: self.flags.slab_flags(),
            ctor: self.flags.ctor,
            page_size: self.page_size,
            cpus: self.cpus,
            slub_min_objects: self.boot.slub_min_objects,
            slub_max_order: self.boot.slub_max_order,
            slub_min_order: self.boot.slub_min_order,
            freeptr_offset: self.freeptr_offset,
            sheaf_capacity: self.sheaf_capacity,
        }
    }

    /// The layout under the asked profile, or why there is none.
    fn geometry(&self) -> Result<CacheGeometry, String> {
        let profile = slabscope_sim::profile::by_id(&self.profile).ok_or_else(|| {
            let known: Vec<&str> = slabscope_sim::profile::PROFILES
                .iter()
                .map(|p| p.id)
                .collect();
            format!(
                "unknown kernel profile '{}' (known: {})",
                self.profile,
                known.join(", ")
            )
        })?;
        profile
            .slub_geometry(&self.request())
            .map_err(|e| e.to_string())
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Live(args) => match live::run(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Workload(args) => match workload::run(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Run(args) => match run::run(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Snapshot(args) => match snapshot::run(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Explore(args) => match explore::run(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Compare(args) => match compare::run(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Sweep(args) => match sweep::run(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Geometry(args) => match args.geometry() {
            Ok(geometry) => {
                if args.json {
                    println!(
                        "{}",
                        serde_json::to_string_pretty(&geometry).expect("serialisable")
                    );
                } else {
                    print_table(&geometry);
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
    }
}

/// Aligned `field value` lines, in the JSON object's field order.
fn print_table(geometry: &CacheGeometry) {
    let value = serde_json::to_value(geometry).expect("serialisable");
    let serde_json::Value::Object(fields) = value else {
        unreachable!("CacheGeometry serialises to an object")
    };
    for (name, value) in fields {
        let shown = match value {
            serde_json::Value::Null => "-".to_string(),
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        };
        println!("{name:<18} {shown}");
    }
}
