// The host emulation of the CUDA runtime declared in cuda_runtime.h (read
// its header comment first).  One emulated device per process.
//
// Work model: each stream holds a queue of operations; an operation runs
// once every operation before it in its stream and every operation it
// depends on has run.  Dependencies come from CUDA's rules: work on the
// legacy default stream waits for all earlier work of blocking streams, and
// work on a blocking stream waits for earlier work of the legacy stream;
// cudaStreamWaitEvent adds the recorded operation.  Eager runs each
// operation when it is issued; adversarial runs it only when a
// synchronisation needs it, choosing among independent work at random.
#include "cuda_runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include <vector>

thread_local uint3 threadIdx, blockIdx;
thread_local dim3 blockDim, gridDim;

struct cuda_emu_stream;

namespace
{

struct op {
    std::function<void()> run;
    std::vector<std::shared_ptr<op>> deps;
    cuda_emu_stream *stream = nullptr;
    bool done = false;
};
using op_ptr = std::shared_ptr<op>;

} // namespace

struct cuda_emu_stream {
    std::deque<op_ptr> pending;
    op_ptr last; // the last operation issued, done or not
    bool blocking = true;
    int priority = 0;
};

struct cuda_emu_event {
    op_ptr marker; // the recorded point of its stream (null: never recorded)
    // host seconds when the marker ran (shared: the event may be destroyed first)
    std::shared_ptr<double> at = std::make_shared<double>(0.0);
};

namespace
{

enum alloc_kind { DEVICE, PINNED };

struct emu {
    bool eager = false;
    std::mt19937_64 rng;
    cuda_emu_stream legacy;
    std::vector<cuda_emu_stream *> streams; // created ones
    std::map<uintptr_t, std::pair<size_t, alloc_kind>> allocations;
    size_t total = 16ull << 30, used = 0;
    cudaError_t last_error = cudaSuccess;

    emu()
    {
        const char *policy = getenv("SHIFTBOX_CUDA_EMU");
        if (policy && !strcmp(policy, "eager"))
            eager = true;
        else if (policy && *policy && strcmp(policy, "adversarial")) {
            fprintf(stderr, "shiftbox: SHIFTBOX_CUDA_EMU = '%s': accepted: eager or adversarial\n",
                    policy);
            exit(2);
        }
        const char *seed = getenv("SHIFTBOX_CUDA_EMU_SEED");
        rng.seed(seed ? strtoull(seed, nullptr, 0) : 20261124u);
        if (const char *m = getenv("SHIFTBOX_CUDA_EMU_MEMORY")) total = strtoull(m, nullptr, 0);
    }
};

emu &the()
{
    static emu e;
    return e;
}

double now()
{
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

cuda_emu_stream *resolve(cudaStream_t s)
{
    return s ? s : &the().legacy;
}

void run(op_ptr o);

void run(op_ptr o) // by value: it leaves its queue while it runs
{
    if (o->done) return;
    cuda_emu_stream *s = o->stream;
    // everything queued before it in its own stream first
    while (!s->pending.empty() && s->pending.front() != o)
        run(s->pending.front());
    std::vector<op_ptr> deps = o->deps;
    std::shuffle(deps.begin(), deps.end(), the().rng);
    for (const op_ptr &d : deps)
        run(d);
    if (o->done) return;
    o->done = true;
    s->pending.erase(std::find(s->pending.begin(), s->pending.end(), o));
    o->run();
    o->deps.clear();
}

void sync_stream(cuda_emu_stream *s)
{
    if (s->last) run(s->last);
}

void sync_device()
{
    emu &e = the();
    for (;;) {
        std::vector<cuda_emu_stream *> busy;
        if (!e.legacy.pending.empty()) busy.push_back(&e.legacy);
        for (cuda_emu_stream *s : e.streams)
            if (!s->pending.empty()) busy.push_back(s);
        if (busy.empty()) return;
        cuda_emu_stream *s = busy[std::uniform_int_distribution<size_t>(0, busy.size() - 1)(e.rng)];
        run(s->pending.front());
    }
}

// Queues `fn` on `stream` after `after` and CUDA's implicit ordering; eager
// runs it now.
op_ptr issue(cudaStream_t stream, std::function<void()> fn, op_ptr after = nullptr)
{
    emu &e = the();
    cuda_emu_stream *s = resolve(stream);
    auto o = std::make_shared<op>();
    o->run = std::move(fn);
    o->stream = s;
    if (after && !after->done) o->deps.push_back(after);
    if (s == &e.legacy) {
        for (cuda_emu_stream *b : e.streams)
            if (b->blocking && b->last && !b->last->done) o->deps.push_back(b->last);
    } else if (s->blocking && e.legacy.last && !e.legacy.last->done) {
        o->deps.push_back(e.legacy.last);
    }
    s->pending.push_back(o);
    s->last = o;
    if (e.eager) run(o);
    return o;
}

// Where `p` points: an allocation of this emulation, or pageable host memory.
bool find(const void *p, size_t bytes, alloc_kind *kind)
{
    emu &e = the();
    uintptr_t a = (uintptr_t)p;
    auto it = e.allocations.upper_bound(a);
    if (it == e.allocations.begin()) return false;
    --it;
    if (a < it->first || a + bytes > it->first + it->second.first) return false;
    *kind = it->second.second;
    return true;
}

bool is_device(const void *p, size_t bytes)
{
    alloc_kind k;
    return find(p, bytes, &k) && k == DEVICE;
}

bool is_pinned(const void *p, size_t bytes)
{
    alloc_kind k;
    return find(p, bytes, &k) && k == PINNED;
}

cudaError_t allocate(void **p, size_t bytes, alloc_kind kind)
{
    emu &e = the();
    if (!p) return cudaErrorInvalidValue;
    if (kind == DEVICE && bytes > e.total - e.used) return cudaErrorMemoryAllocation;
    void *q = aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
    if (!q) return cudaErrorMemoryAllocation;
    e.allocations[(uintptr_t)q] = {bytes, kind};
    if (kind == DEVICE) e.used += bytes;
    *p = q;
    return cudaSuccess;
}

cudaError_t release(void *p, alloc_kind kind)
{
    emu &e = the();
    if (!p) return cudaSuccess;
    auto it = e.allocations.find((uintptr_t)p);
    if (it == e.allocations.end() || it->second.second != kind) return cudaErrorInvalidValue;
    sync_device(); // cudaFree and cudaFreeHost synchronise the device
    if (kind == DEVICE) e.used -= it->second.first;
    e.allocations.erase(it);
    free(p);
    return cudaSuccess;
}

// The direction a copy really has, or an error when it contradicts `kind`.
cudaError_t direction(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                      cudaMemcpyKind *actual)
{
    bool d = is_device(dst, bytes), s = is_device(src, bytes);
    cudaMemcpyKind k = d ? (s ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                         : (s ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
    if (kind != cudaMemcpyDefault && kind != k) return cudaErrorInvalidMemcpyDirection;
    *actual = k;
    return cudaSuccess;
}

// Copies as the runtime documents for `async` or not on `stream`.
cudaError_t copy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream,
                 bool async)
{
    if (bytes == 0) return cudaSuccess;
    if (!dst || !src) return cudaErrorInvalidValue;
    cudaMemcpyKind k;
    if (cudaError_t rc = direction(dst, src, bytes, kind, &k)) return rc;
    if (k == cudaMemcpyHostToDevice && !is_pinned(src, bytes)) {
        // pageable source: staged at the call; the copy to the device later
        if (!async) sync_stream(resolve(stream));
        auto staged = std::make_shared<std::vector<unsigned char>>(
            (const unsigned char *)src, (const unsigned char *)src + bytes);
        issue(stream, [=] { memcpy(dst, staged->data(), bytes); });
        return cudaSuccess;
    }
    op_ptr o = issue(stream, [=] { memcpy(dst, src, bytes); });
    bool to_pageable = k == cudaMemcpyDeviceToHost && !is_pinned(dst, bytes);
    bool host_sync = !async && k != cudaMemcpyDeviceToDevice;
    if (to_pageable || host_sync) run(o);
    return cudaSuccess;
}

const unsigned kMaxThreads = 1024, kMaxGridYZ = 65535, kMaxBlockZ = 64;

} // namespace

const char *cudaGetErrorString(cudaError_t rc)
{
    switch (rc) {
    case cudaSuccess:
        return "no error";
    case cudaErrorInvalidValue:
        return "invalid argument";
    case cudaErrorMemoryAllocation:
        return "out of memory";
    case cudaErrorInvalidConfiguration:
        return "invalid configuration argument";
    case cudaErrorInvalidMemcpyDirection:
        return "invalid copy direction for memcpy";
    case cudaErrorInvalidResourceHandle:
        return "invalid resource handle";
    case cudaErrorNotReady:
        return "device not ready";
    }
    return "unknown error";
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t rc = the().last_error;
    the().last_error = cudaSuccess;
    return rc;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    return device == 0 ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t cudaGetDevice(int *device)
{
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device)
{
    if (device != 0) return cudaErrorInvalidValue;
    memset(prop, 0, sizeof *prop);
    snprintf(prop->name, sizeof prop->name, "CUDA emulation on the host (%s)",
             the().eager ? "eager" : "adversarial");
    prop->totalGlobalMem = the().total;
    prop->major = 0;
    prop->minor = 0;
    prop->l2CacheSize = 1 << 20;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = the().total - the().used;
    *total_bytes = the().total;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    sync_device();
    return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
    *least = 0; // as on current GPUs: lower numbers are higher priorities
    *greatest = -5;
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t bytes)
{
    return allocate(p, bytes, DEVICE);
}

cudaError_t cudaFree(void *p)
{
    return release(p, DEVICE);
}

cudaError_t cudaMallocHost(void **p, size_t bytes)
{
    return allocate(p, bytes, PINNED);
}

cudaError_t cudaFreeHost(void *p)
{
    return release(p, PINNED);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    return copy(dst, src, bytes, kind, 0, false);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    return copy(dst, src, bytes, kind, stream, true);
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t stream)
{
    if (!is_device(p, bytes)) return cudaErrorInvalidValue;
    issue(stream, [=] { memset(p, value, bytes); });
    return cudaSuccess;
}

cudaError_t cudaMemset(void *p, int value, size_t bytes)
{
    // asynchronous to the host for device memory, on the legacy stream
    return cudaMemsetAsync(p, value, bytes, 0);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned flags, int priority)
{
    if (flags > cudaStreamNonBlocking) return cudaErrorInvalidValue;
    auto *x = new cuda_emu_stream;
    x->blocking = !(flags & cudaStreamNonBlocking);
    x->priority = priority < -5 ? -5 : priority > 0 ? 0 : priority; // clamped as CUDA does
    the().streams.push_back(x);
    *s = x;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
    return cudaStreamCreateWithPriority(s, flags, 0);
}

cudaError_t cudaStreamGetPriority(cudaStream_t s, int *priority)
{
    *priority = resolve(s)->priority;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    sync_stream(resolve(s));
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags)
{
    if (!e || flags) return cudaErrorInvalidValue;
    issue(
        s, [] {}, e->marker);
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    emu &e = the();
    if (!s) return cudaErrorInvalidResourceHandle;
    sync_stream(s); // its work still completes
    for (size_t i = 0; i < e.streams.size(); i++)
        if (e.streams[i] == s) {
            e.streams.erase(e.streams.begin() + (long)i);
            delete s;
            return cudaSuccess;
        }
    return cudaErrorInvalidResourceHandle;
}

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    *e = new cuda_emu_event;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    if (!e) return cudaErrorInvalidResourceHandle;
    std::shared_ptr<double> at = e->at;
    e->marker = issue(s, [at] { *at = now(); });
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    if (!e) return cudaErrorInvalidResourceHandle;
    if (e->marker) run(e->marker);
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!start || !end || !start->marker || !end->marker) return cudaErrorInvalidResourceHandle;
    if (!start->marker->done || !end->marker->done) return cudaErrorNotReady;
    *ms = (float)(1e3 * (*end->at - *start->at));
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    delete e;
    return cudaSuccess;
}

void cuda_emu_launch(dim3 grid, dim3 block, cudaStream_t stream, std::function<void()> body)
{
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0 || threads > kMaxThreads ||
        grid.y > kMaxGridYZ || grid.z > kMaxGridYZ || block.z > kMaxBlockZ) {
        the().last_error = cudaErrorInvalidConfiguration;
        return;
    }
    issue(stream, std::move(body));
}

// ---- blocks whose threads meet at __syncthreads --------------------------------
// Each thread of the block is a fiber (ucontext) on the host thread that runs
// the launch; __syncthreads switches back to the scheduler below, which
// resumes the fibers once all of them have arrived.
namespace
{

enum fiber_state { RUNNABLE, AT_BARRIER, DONE };

struct fiber_block {
    ucontext_t scheduler;
    std::vector<ucontext_t> context;
    std::vector<fiber_state> state;
    char *stacks = nullptr; // nstacks of (guard page, stack), mapped once
    size_t nstacks = 0;
    const std::function<void()> *thread = nullptr;
    unsigned current = 0;
};

const size_t kFiberStack = 64 << 10;

size_t page_bytes()
{
    static const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

// n stacks, each above a page that faults when touched.
char *map_stacks(size_t n)
{
    size_t slot = page_bytes() + kFiberStack;
    void *p = mmap(nullptr, n * slot, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("cuda_emu: mmap of the fibers' stacks");
        abort();
    }
    for (size_t i = 0; i < n; i++)
        mprotect((char *)p + i * slot, page_bytes(), PROT_NONE);
    return (char *)p;
}

thread_local fiber_block *running_block = nullptr;

void fiber_main()
{
    fiber_block *fb = running_block;
    (*fb->thread)();
    fb->state[fb->current] = DONE; // returns to uc_link, the scheduler
}

void block_fibers(dim3 grid, dim3 block, uint3 index, const std::function<void()> &thread)
{
    thread_local fiber_block fb; // its stacks kept for the next block
    unsigned n = block.x * block.y * block.z;
    size_t slot = page_bytes() + kFiberStack;
    if (fb.nstacks < n) {
        if (fb.stacks) munmap(fb.stacks, fb.nstacks * slot);
        fb.stacks = map_stacks(n);
        fb.nstacks = n;
    }
    fb.context.resize(n);
    fb.state.assign(n, RUNNABLE);
    fb.thread = &thread;
    for (unsigned i = 0; i < n; i++) {
        getcontext(&fb.context[i]);
        fb.context[i].uc_stack.ss_sp = fb.stacks + i * slot + page_bytes();
        fb.context[i].uc_stack.ss_size = kFiberStack;
        fb.context[i].uc_link = &fb.scheduler;
        makecontext(&fb.context[i], fiber_main, 0);
    }
    std::vector<unsigned> order(n);
    for (unsigned i = 0; i < n; i++)
        order[i] = i;
    running_block = &fb;
    for (;;) {
        for (unsigned i : order) {
            fb.current = i;
            threadIdx = uint3{i % block.x, i / block.x % block.y, i / (block.x * block.y)};
            blockIdx = index;
            blockDim = block;
            gridDim = grid;
            swapcontext(&fb.scheduler, &fb.context[i]);
        }
        unsigned done = (unsigned)std::count(fb.state.begin(), fb.state.end(), DONE);
        if (done == n) break;
        if (done > 0) {
            fprintf(stderr,
                    "cuda_emu: %u of %u threads of a block left the kernel while the "
                    "others wait at __syncthreads\n",
                    done, n);
            abort();
        }
        std::fill(fb.state.begin(), fb.state.end(), RUNNABLE);
        if (!the().eager) std::shuffle(order.begin(), order.end(), the().rng);
    }
    running_block = nullptr;
}

} // namespace

void __syncthreads(void)
{
    fiber_block *fb = running_block;
    if (!fb) {
        fprintf(stderr, "cuda_emu: __syncthreads in a kernel not launched with SB_LAUNCH_SYNC\n");
        abort();
    }
    fb->state[fb->current] = AT_BARRIER;
    swapcontext(&fb->context[fb->current], &fb->scheduler);
}

void cuda_emu_grid_fibers(dim3 grid, dim3 block, const std::function<void()> &thread)
{
    std::vector<uint3> blocks;
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++)
                blocks.push_back(uint3{bx, by, bz});
    if (!the().eager) std::shuffle(blocks.begin(), blocks.end(), the().rng);
    for (const uint3 &index : blocks)
        block_fibers(grid, block, index, thread);
}
