//! `Arena<T>`: an append-only store in fixed-size chunks. A trace of millions of steps grows
//! without the doubling (and the copy at each doubling) of one `Vec`, and a run of items pushed
//! between two `mark`s is contiguous, so a step's events are one slice.

/// Items per chunk.
const CHUNK: usize = 1 << 16;

#[derive(Clone, Debug, Default)]
pub(crate) struct Arena<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

/// Where a run of items starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Mark {
    pub chunk: u32,
    pub index: u32,
}

impl<T> Arena<T> {
    pub fn new() -> Self {
        Arena {
            chunks: Vec::new(),
            len: 0,
        }
    }

    /// Starts a run that is expected to hold about `room` items: if the current chunk cannot
    /// take that many, the run starts in a new chunk. A longer run still stays contiguous (its
    /// chunk grows).
    pub fn mark(&mut self, room: usize) -> Mark {
        let full = self
            .chunks
            .last()
            .is_none_or(|c| c.len() + room > c.capacity().max(CHUNK));
        if full {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        Mark {
            chunk: (self.chunks.len() - 1) as u32,
            index: self.chunks.last().map_or(0, Vec::len) as u32,
        }
    }

    /// Appends to the current run (call `mark` first).
    pub fn push(&mut self, item: T) {
        self.chunks
            .last_mut()
            .expect("mark opens a chunk")
            .push(item);
        self.len += 1;
    }

    /// The items from `mark` to the end of its run, `end` items into its chunk.
    pub fn slice(&self, mark: Mark, end: u32) -> &[T] {
        &self.chunks[mark.chunk as usize][mark.index as usize..end as usize]
    }

    /// Where the current run ends now (an index into the mark's chunk).
    pub fn end(&self) -> u32 {
        self.chunks.last().map_or(0, Vec::len) as u32
    }

    /// Item `i` of an arena whose runs are all single items (`mark(1)` before each push), so
    /// every chunk but the last is full.
    pub fn get(&self, i: usize) -> Option<&T> {
        self.chunks.get(i / CHUNK)?.get(i % CHUNK)
    }

    /// The last item pushed.
    pub fn last_mut(&mut self) -> Option<&mut T> {
        self.chunks.last_mut()?.last_mut()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }

    /// Heap bytes held by the chunks themselves.
    pub fn heap_bytes(&self) -> usize {
        self.chunks.capacity() * std::mem::size_of::<Vec<T>>()
            + self
                .chunks
                .iter()
                .map(|c| c.capacity() * std::mem::size_of::<T>())
                .sum::<usize>()
    }
}
