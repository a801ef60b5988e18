use super::*;
use crate::ids::CpuId;
use crate::machine::check::check_page_allocator;
use crate::slub::check::check_slub;
use crate::slub::{kfree, kmalloc};
use crate::workload::standard_recorder;
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg32;

/// One CPU at a time, the live memory runs the same operations as the machine and ends in
/// the same state: the same kernel code over the two memories.
#[test]
fn one_thread_over_the_live_memory_ends_where_the_machine_ends() {
    let mut rec = standard_recorder(false);
    let base = rec.machine().clone();
    let mem = LiveMem::new(&base).expect("the standard machine runs live");
    let table = KmallocTable::new(&rec);
    let cpus: Vec<LiveCpu> = (0..4).map(|c| LiveCpu::new(&mem, CpuId::new(c), false)).collect();
    let mut rng = Pcg32::seed_from_u64(11);
    let mut live: Vec<u64> = Vec::new();
    for i in 0..30_000u32 {
        let cpu = CpuId::new(rng.next_u32() % 4);
        let alloc = live.is_empty() || (live.len() < 3000 && rng.next_u32() % 3 != 0) || i % 7 == 0;
        if alloc {
            let size = u64::from(rng.next_u32() % 2048 + 1);
            let a = kmalloc(&mut rec, size, cpu, None);
            let b = cpus[usize::from(cpu)].alloc(table.cache(size).expect("a kmalloc size"));
            assert_eq!(a, b, "allocation {i}");
            live.push(a);
        } else {
            let addr = live.swap_remove((rng.next_u32() as usize) % live.len());
            kfree(&mut rec, addr, cpu, None);
            assert!(cpus[usize::from(cpu)].free(addr));
        }
    }
    let expected = with_short_tids(rec.machine().clone());
    let got = mem.to_machine(&base);
    assert_eq!(check_slub(&got), Vec::<String>::new());
    assert_eq!(check_page_allocator(&got), Vec::<String>::new());
    assert!(
        got == expected,
        "the live memory's state differs from the machine's"
    );
}

/// Real threads, real races: the replay of the log on the interleaving engine returns every
/// allocation's address and ends in the live state.
#[test]
fn a_recorded_live_run_replays_to_the_same_state() {
    for (threads, frees, seed) in [
        (2, run::Frees::Remote, 1),
        (2, run::Frees::Local, 2),
        (4, run::Frees::Remote, 3),
        (1, run::Frees::Remote, 4),
    ] {
        let live = run::run_workload(threads, 20_000, seed, frees, true).expect("runs live");
        let total = live.total();
        assert_eq!(total.ops, live.ops.iter().map(Vec::len).sum::<usize>() as u64);
        let replay = run::replay(&live);
        assert_eq!(replay.mismatch, None, "{threads} threads, {frees:?}, seed {seed}");
        let logged: usize = live.logs.iter().map(record::ThreadLog::len).sum();
        assert_eq!(replay.micro_steps, logged);
        let got = live.mem.to_machine(&live.base);
        assert_eq!(check_slub(&got), Vec::<String>::new());
        assert_eq!(check_page_allocator(&got), Vec::<String>::new());
    }
}

#[test]
fn zz_print_stats() {
  for FREES in [run::Frees::Local, run::Frees::Remote] { eprintln!("{FREES:?}");
    for threads in [1u32, 2, 4] {
        let live = run::run_workload(threads, 1_000_000, 9, FREES, true).unwrap();
        let t = live.total();
        let r = run::replay(&live);
        eprintln!("threads {threads}: {:.3}s ops {} boundaries {} retries {:?} waits {} taken {} mismatch {:?}", live.seconds, t.ops, t.boundaries, t.retries, t.lock_waits, t.lock_taken, r.mismatch);
        let live = run::run_workload(threads, 1_000_000, 9, FREES, false).unwrap();
        eprintln!("  unrecorded {:.3}s retries {:?}", live.seconds, live.total().retries);
    }
  }
}

#[test]
fn zz_cycle() {
    for seed in 0..40 {
        let threads = [2, 4, 3][seed as usize % 3];
        let frees = if seed % 2 == 0 { run::Frees::Remote } else { run::Frees::Local };
        let live = run::run_workload(threads, 1_000_000, seed, frees, true).unwrap();
        let r = run::replay(&live);
        if let Some(m) = r.mismatch { eprintln!("seed {seed}: {}", m.replace("Mark ", "").replace("class: ", "")); break; } else { eprintln!("seed {seed} ok"); }
    }
}
