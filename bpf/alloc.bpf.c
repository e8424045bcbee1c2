// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * Allocator uprobes (--alloc): every malloc-family call of a target, charged to the stack it
 * returned to, and every free, charged back to the row of the block it frees. The loader
 * attaches these programs per target pid, each probe with a cookie naming the function
 * (enum fl_alloc_fn), at an offset chosen so the kernel emulates the probed instruction:
 * fl_alloc_call at the allocating functions under --sample-bytes where the kernel has uprobe
 * sessions, else fl_alloc_enter and fl_alloc_exit; fl_free_enter at free. --alloc=churn
 * loads fl_alloc_churn alone instead: the entries only, one trap per call.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "alloc_math.h"
#include "alloc_task.bpf.h"
#include "faultline.h"
#include "legacy.bpf.h"
#include "maps.bpf.h"
#include "regs_x86.bpf.h"
#include "stack.bpf.h"
#include "threads.bpf.h"

/* --sample-bytes: mean bytes between sample points; 0 records every allocation. */
const volatile __u64 sample_mean = 0;

/* Blocks allocated since attach and not freed yet (sampled ones only under sampling). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, FL_NO_PREALLOC);
	__uint(max_entries, 1048576);
	__type(key, struct fl_live_key);
	__type(value, struct fl_live);
} live SEC(".maps");

/* Size and latency histograms per allocation row (same keys as counts). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, FL_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, struct fl_key);
	__type(value, struct fl_alloc_hist);
} alloc_hists SEC(".maps");

static const struct fl_alloc_hist zero_hist;

#ifdef FL_LEGACY
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FL_PROBE_SITES);
	__type(key, struct fl_probe_site);
	__type(value, __u64);
} probe_sites SEC(".maps");
#endif

/* The cookie of the probe that stopped this thread at its entry (the loader's probe_cookie());
 * 0, counted as an unseen call, where the legacy object has none for its address. */
static __always_inline __u64 fl_probe_cookie(struct pt_regs *ctx)
{
#ifdef FL_LEGACY
	struct fl_probe_site k = { .tgid = bpf_get_current_pid_tgid() >> 32,
				   .addr = PT_REGS_IP(ctx) };
	__u64 *c = bpf_map_lookup_elem(&probe_sites, &k);

	if (c)
		return *c;
	fl_drop(FL_DROP_ALLOC_STATE);
	return 0;
#else
	return bpf_get_attach_cookie(ctx);
#endif
}

/*
 * An allocator calls its inner functions right away: an outer entry older than this is
 * stale (its return was never seen: a C++ exception out of operator new), not an outer call.
 */
#define FL_NESTED_NS 10000000

/*
 * True when the thread is already inside an allocator call that will be counted, so this one
 * (at @sp) is part of it: operator new calling malloc (a lower stack pointer), reallocarray
 * tail-calling realloc (the same one), realloc calling free. A higher stack pointer means the
 * outer call has returned unseen.
 */
static __always_inline bool fl_nested(const struct fl_alloc_task *st, __u64 sp, __u64 now)
{
	return st->sp && sp <= st->sp && now - st->ts < FL_NESTED_NS;
}

/* a * b, or ~0 when it overflows (the call then fails and is not counted) */
static __always_inline __u64 fl_mul(__u64 a, __u64 b)
{
	__u64 limit;

	if (!((a | b) >> 32) || !b)
		return a * b;
	limit = ~0ull / b;
	/* keeps clang from turning the check into a 128-bit multiply, which BPF lacks */
	asm volatile("" : "+r"(limit));
	return a > limit ? ~0ull : a * b;
}

/* No request above the x86-64 user address space (128 TiB) can succeed: such a call (and a
 * calloc whose n * size overflows) is weighed (--alloc=churn: counted) as asking for 0 bytes,
 * or one bad call would outweigh every other, and its size would wrap a sampler's gap. */
#define FL_SIZE_IMPOSSIBLE (1ull << 47)

/* The bytes a call of allocator function @fn asks for, from its arguments. */
static __always_inline __u64 fl_call_size(__u32 fn, const struct pt_regs *ctx)
{
	switch (fn) {
	case FL_FN_CALLOC:
		return fl_mul(PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx));
	case FL_FN_REALLOC:
		return PT_REGS_PARM2(ctx);
	case FL_FN_REALLOCARRAY:
		return fl_mul(PT_REGS_PARM2(ctx), PT_REGS_PARM3(ctx));
	case FL_FN_POSIX_MEMALIGN:
		return PT_REGS_PARM3(ctx);
	case FL_FN_ALIGNED_ALLOC:
		return PT_REGS_PARM2(ctx);
	default:
		return PT_REGS_PARM1(ctx);
	}
}

/* fl_live_key.gen of the blocks of @task (the current one): one load, no lookup. */
static __always_inline __u32 fl_gen(const struct task_struct *task)
{
	return (__u32)FL_TASK(task, self_exec_id);
}

/* Removes the live entry of @ptr into @out; false when there is none (or a racing free of the
 * same block took it first). */
static __always_inline bool fl_live_take(__u32 tgid, __u32 gen, __u64 ptr, struct fl_live *out)
{
	struct fl_live_key k = { .tgid = tgid, .gen = gen, .ptr = ptr };
	struct fl_live *l = bpf_map_lookup_elem(&live, &k);

	if (!l)
		return false;
	*out = *l;
	return !bpf_map_delete_elem(&live, &k);
}

static __always_inline void fl_add_frees(struct fl_counts *c, const struct fl_live *l)
{
	__sync_fetch_and_add(&c->frees, l->count);
	__sync_fetch_and_add(&c->free_bytes, l->bytes);
}

/* A freed block: its weights go back to the row that allocated it. */
static __noinline void fl_free_charge(__u32 tgid, const struct fl_live *l)
{
	struct fl_key key = fl_live_row(tgid, l);
	struct fl_counts *c = fl_counts_get(&key);

	if (c)
		fl_add_frees(c, l);
}

static __always_inline void fl_hist_add(struct fl_key *key, __u64 size, __u64 ns)
{
	struct fl_alloc_hist *h = bpf_map_lookup_elem(&alloc_hists, key);

	if (!h) {
		/* EEXIST: another CPU created it; anything else: full, the counts keep the call */
		bpf_map_update_elem(&alloc_hists, key, &zero_hist, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&alloc_hists, key);
		if (!h) {
			fl_drop(FL_DROP_HISTS_FULL);
			return;
		}
	}
	__sync_fetch_and_add(&h->size[fl_hist_bucket(size) & (FL_HIST_BUCKETS - 1)], 1);
	__sync_fetch_and_add(&h->latency[fl_hist_bucket(ns) & (FL_HIST_BUCKETS - 1)], 1);
}

/* The weights of an allocation of @size: bytes and count, both 0 when it is not sampled.
 * @left: the thread's bytes until its next sample point. */
static __always_inline __u64 fl_weigh(__s64 *left, __u64 size, __u64 *count)
{
	__u64 bytes;

	*count = 1;
	if (!sample_mean)
		return size;
	if (!*left)
		*left = fl_sample_interval(sample_mean, bpf_get_prandom_u32());
	bytes = fl_sample_weight(left, size, sample_mean);
	if (!bytes) {
		*count = 0;
		return 0;
	}
	*left = fl_sample_interval(sample_mean, bpf_get_prandom_u32());
	*count = fl_sample_count(bytes, size, bpf_get_prandom_u32());
	return bytes;
}

/*
 * Fills the stack fields of @key with the stack the allocation returned to (@ctx: the caller
 * right after the call). A call site the thread's allocations returned to lately, with the same
 * registers, the same unwind tables and every stack word its walk read unchanged, takes that
 * walk's stack without walking (fl_cache_check: two callers reaching one site at the same
 * depth differ in the words they saved); the rest walk and replace the entry of their
 * registers, or the oldest.
 */
static __always_inline void fl_ret_stack(struct task_struct *task, struct pt_regs *ctx,
					 struct fl_alloc_task *st, struct fl_key *key)
{
	__u64 ip = PT_REGS_IP(ctx), bp = PT_REGS_FP(ctx), sp = PT_REGS_SP(ctx);
	struct fl_walk_out w = {};
	struct fl_stack_cache *c;
	__u32 i, at = st->ret_next;

	for (i = 0; i < FL_RET_SITES; i++) {
		c = &st->ret[i];
		if (c->ip == ip && c->sp == sp && c->bp == bp) {
			at = i;
			break;
		}
	}
	/* read back from memory, the entry is one the verifier does not know: it then checks
	 * the walk below once, not once for each entry (56,899 instructions, 0.15 s of
	 * --alloc's start-up, against 16,457) */
	st->ret_at = at;
	c = &st->ret[*(volatile __u32 *)&st->ret_at & (FL_RET_SITES - 1)];
	if (i < FL_RET_SITES && fl_cache_check(task, c, ip, bp, sp)) {
		key->stack = c->stack;
		key->origin = FL_ORIGIN_USER;
		key->leaf_ret = 0;
		return;
	}
	if (i == FL_RET_SITES)
		st->ret_next = (at + 1) & (FL_RET_SITES - 1);
	fl_stack_take_into(ip, bp, sp, false, key, &w, c);
	c->ip = ip;
	c->sp = sp;
	c->bp = bp;
	c->stack = key->stack;
}

/* A successful allocation of @ptr by @task (the current one), seen where it returned to its
 * caller, weighed at its entry. The task's fields stand for helper calls, each 15-40 ns on a
 * kernel with return-thunk mitigations. */
static __noinline void fl_alloc_record(struct task_struct *task, struct pt_regs *ctx,
				       struct fl_alloc_task *st, __u64 ptr, __u64 now)
{
	struct fl_key key = { .tgid = FL_TASK(task, tgid),
			      .tid = FL_TASK(task, pid),
			      .call = st->fn };
	struct fl_live_key lk = { .tgid = key.tgid, .gen = fl_gen(task), .ptr = ptr };
	struct fl_live l = { .bytes = st->bytes, .count = st->count };
	struct fl_counts *c;

	if (!l.bytes && !l.count)
		return;
	/* the caller's frame is whole here: ip is the return address into it */
	fl_ret_stack(task, ctx, st, &key);
	c = fl_counts_get(&key);
	if (!c)
		return;
	__sync_fetch_and_add(&c->allocs, l.count);
	__sync_fetch_and_add(&c->alloc_bytes, l.bytes);
	fl_hist_add(&key, st->size, now - st->ts);
	l.stack = key.stack;
	l.tid = key.tid;
	l.alloc_fn = key.call;
	l.origin = key.origin;
	l.ts = now;
	if (bpf_map_update_elem(&live, &lk, &l, BPF_ANY)) {
		/* its free could never be matched: count it freed now, never as a leak */
		fl_drop(FL_DROP_LIVE_FULL);
		fl_add_frees(c, &l);
	}
}

/*
 * An allocator call's entry. Returns whether its return is wanted: not for a call inside one
 * already counted, nor for an unsampled malloc, which calls no probed function (the others
 * may: musl's calloc calls malloc, operator new does; their return ends the "inside" that
 * keeps such calls from counting twice). Sampling weighs the call here, so a call that fails
 * takes its part of the bytes too.
 */
static __always_inline bool fl_alloc_begin(struct pt_regs *ctx)
{
	struct task_struct *task = fl_current_task();
	__u32 fn = fl_probe_cookie(ctx);
	struct fl_alloc_task *st;
	__u64 now = 0, size;

	if (!fn)
		return false;
	/* No target lookup: the probes are attached to the targets' pids only, and a launched
	 * child calls no allocator between the attach and its exec (read(), then execvp()). */
	st = fl_thread_get(&alloc_task, task, true);
	if (!st) {
		fl_drop(FL_DROP_ALLOC_STATE);
		return false;
	}
	/* the clock (~40 ns) only when it is needed: an unsampled call outside any reads none */
	if (st->sp && fl_nested(st, PT_REGS_SP(ctx), now = bpf_ktime_get_ns()))
		return false;
	size = fl_call_size(fn, ctx);
	st->bytes = fl_weigh(&st->sample_left, size < FL_SIZE_IMPOSSIBLE ? size : 0, &st->count);
	if (!st->bytes && !st->count && fn == FL_FN_MALLOC) {
		st->sp = 0; /* not nested, so any call it marked has returned unseen */
		return false;
	}
	st->sp = PT_REGS_SP(ctx);
	st->ts = now ? now : bpf_ktime_get_ns();
	st->fn = fn;
	st->have_old = 0;
	st->size = size;
	/* realloc's old block; posix_memalign's pointer to the new one */
	st->arg = 0;
	if (fn == FL_FN_REALLOC || fn == FL_FN_REALLOCARRAY || fn == FL_FN_POSIX_MEMALIGN)
		st->arg = PT_REGS_PARM1(ctx);
	/* realloc's old block leaves the live table now: once realloc has freed it, another
	 * thread may be given the same address before this thread's return probe runs */
	if ((fn == FL_FN_REALLOC || fn == FL_FN_REALLOCARRAY) && st->arg)
		st->have_old = fl_live_take(FL_TASK(task, tgid), fl_gen(task), st->arg, &st->old);
	return true;
}

/* The return of an allocator call whose entry fl_alloc_begin() wanted it. */
static __always_inline void fl_alloc_end(struct pt_regs *ctx)
{
	struct task_struct *task = fl_current_task();
	struct fl_alloc_task *st;
	__u64 ptr = PT_REGS_RC(ctx), now;

	st = fl_thread_get(&alloc_task, task, false);
	if (!st || !st->sp)
		return;
	/* the outermost call returns with its return address popped: sp = entry sp + 8 */
	if (PT_REGS_SP(ctx) != st->sp + FL_RET_POP) {
		if (PT_REGS_SP(ctx) > st->sp + FL_RET_POP)
			st->sp = 0;
		return;
	}
	st->sp = 0;
	now = bpf_ktime_get_ns();
	if (st->fn == FL_FN_POSIX_MEMALIGN) {
		ptr = 0;
		if (PT_REGS_RC(ctx) == 0 && bpf_probe_read_user(&ptr, sizeof(ptr), (void *)st->arg))
			ptr = 0;
	}
	if (st->have_old) {
		struct fl_live_key k = { .tgid = FL_TASK(task, tgid),
					 .gen = fl_gen(task),
					 .ptr = st->arg };

		/* realloc frees the old block when it succeeds, or when asked for 0 bytes */
		if (ptr || !st->size)
			fl_free_charge(FL_TASK(task, tgid), &st->old);
		else
			bpf_map_update_elem(&live, &k, &st->old, BPF_ANY);
		st->have_old = 0;
	}
	if (ptr)
		fl_alloc_record(task, ctx, st, ptr, now);
}

SEC("uprobe")
int fl_alloc_enter(struct pt_regs *ctx)
{
	fl_alloc_begin(ctx);
	return 0;
}

SEC("uretprobe")
int fl_alloc_exit(struct pt_regs *ctx)
{
	fl_alloc_end(ctx);
	return 0;
}

/*
 * Both of the above as one uprobe session (Linux 6.13; the loader uses it under
 * --sample-bytes where the kernel has it): an entry that returns 1 has no return probe, so
 * an unsampled malloc or a nested call costs one trap instead of two.
 */
SEC("uprobe")
int fl_alloc_call(struct pt_regs *ctx)
{
	/* At the entry the pc is the probe's address, at the return the caller's. Not
	 * bpf_session_is_return(): a kfunc makes libbpf read the kernel's whole BTF (10-20 ms of
	 * start-up). */
	if (PT_REGS_IP(ctx) != bpf_get_func_ip(ctx)) {
		fl_alloc_end(ctx);
		return 0;
	}
	return fl_alloc_begin(ctx) ? 0 : 1;
}

SEC("uprobe")
int fl_free_enter(struct pt_regs *ctx)
{
	struct task_struct *task = fl_current_task();
	__u32 tgid = FL_TASK(task, tgid);
	struct fl_alloc_task *st;
	struct fl_key key = { .tgid = tgid, .origin = FL_ORIGIN_UNMATCHED };
	struct fl_counts *c;
	struct fl_live l;
	__u64 ptr = PT_REGS_PARM1(ctx);

	if (!ptr)
		return 0;
	if (fl_live_take(tgid, fl_gen(task), ptr, &l)) {
		fl_free_charge(tgid, &l);
		return 0;
	}
	/* under sampling most blocks were never recorded: a miss says nothing */
	if (sample_mean)
		return 0;
	/* A free inside realloc (glibc's realloc(p, 0) calls free) is part of that call, which
	 * took the block out at its entry: only a miss needs the check. */
	st = fl_thread_get(&alloc_task, task, false);
	if (st && fl_nested(st, PT_REGS_SP(ctx), bpf_ktime_get_ns()))
		return 0;
	c = fl_counts_get(&key);
	if (c)
		__sync_fetch_and_add(&c->unmatched_frees, 1);
	return 0;
}

/*
 * @word, read at @sp: the return address, or the trampoline of a uretprobe that replaced it
 * after an outer call's entry (another tool's, or exact mode's of another faultline: the
 * kernel hijacks a probed function's return in every process that hits the probe), whose
 * saved address is then the real one. The stack walk resolves the trampoline by itself.
 */
static __always_inline __u64 fl_real_ret(__u64 sp, __u64 word)
{
	struct uprobe_task *ut = BPF_CORE_READ(fl_current_task(), utask);
	struct return_instance *ri = ut ? fl_pending_ri(ut, sp) : NULL;

	if (ri && BPF_CORE_READ(ri, stack) == sp)
		return BPF_CORE_READ(ri, orig_ret_vaddr);
	return word;
}

/*
 * True when a call entering an allocator function with @sp, its return address @ret, is part
 * of the call @st counted last: made from that function's code (operator new calling malloc,
 * realloc calling malloc), or from the code of one entered inside it since, or jumped to from
 * it (realloc(NULL, n) and memalign tail-jumping to malloc, reallocarray to realloc: the same
 * frame, another function). Without return probes there is no "still inside" to test; a
 * return address inside the function is the proof that it is still running.
 */
static __always_inline bool fl_churn_nested(const struct fl_churn_task *st, __u64 sp, __u64 ret,
					    __u32 fn)
{
	if ((ret >= st->lo && ret < st->hi) || (ret >= st->in_lo && ret < st->in_hi))
		return true;
	return sp == st->sp && ret == st->ret && fn != st->fn;
}

/*
 * --alloc=churn: one allocator call, at its entry. Charges the call and the bytes it asks for
 * to the stack of its caller, walked from the return address on top of the stack as the
 * return probe of exact mode walks it, so both modes give the same stacks. No return probe,
 * no free, no live table: nothing is known of the block it returns.
 */
SEC("uprobe")
int fl_alloc_churn(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 cookie = fl_probe_cookie(ctx);
	__u32 fn = cookie & 0xff;
	/* the probe may sit past the entry, before anything moved rsp (placement.h) */
	__u64 entry = PT_REGS_IP(ctx) - ((cookie >> 8) & 0xffffff), fsize = cookie >> 32;
	struct fl_key key = { .tgid = pid_tgid >> 32, .tid = (__u32)pid_tgid, .call = fn };
	struct fl_walk_out w = {};
	struct fl_churn_task *st;
	__u64 word = 0, ret, size, bytes, count;
	struct fl_counts *c;

	if (!fn)
		return 0;
	st = fl_thread_get(&churn_task, fl_current_task(), true);
	if (!st) {
		fl_drop(FL_DROP_ALLOC_STATE);
		return 0;
	}
	/* unreadable: 0, which no function holds; the call is counted on [stack lost] */
	if (bpf_probe_read_user(&word, sizeof(word), (void *)PT_REGS_SP(ctx)))
		word = 0;
	ret = word ? fl_real_ret(PT_REGS_SP(ctx), word) : 0;
	if (fl_churn_nested(st, PT_REGS_SP(ctx), ret, fn)) {
		st->in_lo = entry;
		st->in_hi = fsize ? entry + fsize : 0;
		return 0;
	}
	st->sp = PT_REGS_SP(ctx);
	st->ret = ret;
	st->fn = fn;
	st->lo = entry;
	st->hi = fsize ? entry + fsize : 0;
	st->in_lo = 0;
	st->in_hi = 0;
	size = fl_call_size(fn, ctx);
	if (size >= FL_SIZE_IMPOSSIBLE)
		size = 0;
	bytes = fl_weigh(&st->sample_left, size, &count);
	if (!bytes && !count)
		return 0;
	/* the caller's state after the return: pc the return address, the address popped */
	fl_stack_take(word, PT_REGS_FP(ctx), PT_REGS_SP(ctx) + FL_RET_POP, false, &key, &w);
	c = fl_counts_get(&key);
	if (!c)
		return 0;
	__sync_fetch_and_add(&c->allocs, count);
	__sync_fetch_and_add(&c->alloc_bytes, bytes);
	return 0;
}
