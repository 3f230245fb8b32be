// Kernels in the shape of cuda-oxide's cooperative-groups, grid-sync, cluster and dynamic
// shared memory examples (NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019).
use cuda_device::cooperative_groups::{
    block_reduce, coalesced_threads, ops::{Max, Sum}, this_grid, this_thread_block, warp_reduce, warp_scan,
    ThreadGroup, WarpCollective, WarpTile,
};
use cuda_device::{grid, kernel, thread, warp, DisjointSlice, DynamicSharedArray, SharedArray};

#[kernel]
pub fn tile_votes(mut out: DisjointSlice<u32>) {
    let gid = thread::index_1d();
    let tile = this_thread_block().tiled_partition::<16>();
    let votes = tile.ballot((warp::lane_id() & 1) != 0);
    let first = tile.shfl(votes, 0);
    if let Some(slot) = out.get_mut(gid) {
        *slot = first + tile.thread_rank();
    }
}

fn tile_total(tile: &WarpTile<32>, v: f32) -> f32 {
    warp_reduce::<f32, Sum, _>(tile, v)
}

#[kernel]
pub fn warp_sums(data: &[f32], mut out: DisjointSlice<f32>) {
    let warp = this_thread_block().tiled_partition::<32>();
    let i = thread::index_1d().get();
    let total = tile_total(&warp, data[i]);
    let prefix = warp_scan::<f32, Max, _>(&warp, data[i]);
    if warp.thread_rank() == 0 {
        unsafe {
            *out.get_unchecked_mut(i / 32) = total + prefix;
        }
    }
}

#[kernel]
pub fn block_sums(data: &[u32], mut out: DisjointSlice<u32>) {
    static mut SCRATCH: SharedArray<u32, 8> = SharedArray::UNINIT;
    let block = this_thread_block();
    let i = thread::index_1d().get();
    let total = block_reduce::<u32, Sum, _>(&block, data[i], &raw mut SCRATCH);
    block.sync();
    if thread::threadIdx_x() == 0 {
        unsafe {
            *out.get_unchecked_mut(thread::blockIdx_x() as usize) = total;
        }
    }
}

#[kernel]
pub fn buckets(mut out: DisjointSlice<u32>) {
    let gid = thread::index_1d();
    let peers = warp::match_any_sync(u32::MAX, warp::lane_id() / 4);
    let same = warp::match_all_sync(u32::MAX, 7u32);
    let group = coalesced_threads();
    if let Some(slot) = out.get_mut(gid) {
        *slot = peers ^ same ^ group.size();
    }
}

#[kernel]
#[cooperative_launch]
pub fn grid_marks(mut marks: DisjointSlice<u32>, mut out: DisjointSlice<u32>) {
    let b = thread::blockIdx_x();
    if thread::threadIdx_x() == 0 {
        unsafe {
            *marks.get_unchecked_mut(b as usize) = b + 1;
        }
    }
    grid::sync();
    let rank = this_grid().thread_rank();
    if thread::threadIdx_x() == 0 {
        unsafe {
            *out.get_unchecked_mut(b as usize) = *marks.get_unchecked_mut(0) + rank;
        }
    }
}

#[kernel]
pub fn staged_neighbours(data: &[f32], mut out: DisjointSlice<f32>) {
    let stage: *mut f32 = DynamicSharedArray::<f32, 128>::get();
    let second: *mut f32 = DynamicSharedArray::<f32>::offset(1024);
    let tid = thread::threadIdx_x() as usize;
    let gid = thread::index_1d().get();
    unsafe {
        *stage.add(tid) = data[gid];
        *second.add(tid) = data[gid];
    }
    thread::sync_threads();
    if let Some(o) = out.get_mut(thread::index_1d()) {
        unsafe {
            *o = *stage.add((tid + 1) % 256) + *second.add(tid);
        }
    }
}
