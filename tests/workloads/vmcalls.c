/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * vmcalls: memory syscalls with known sizes, each from its own named function (--vm).
 *
 *   vmcalls [--now] [--exit] [DIR]   (DIR: where the mapped file goes; default /var/tmp. On
 *                                     tmpfs its pages count as shmem, not file)
 *
 * Work, in order (MiB):
 *   vm_reserve   mmap anon 16 (reserved 16), not touched here
 *   vm_touch     writes the first 8 MiB of it (anon growth 8, by faults)
 *   vm_populate  mmap anon 4 with MAP_POPULATE (reserved 4; anon growth 4 inside the call)
 *   vm_shared    mmap shared anon 2 (reserved 2), then writes it (shmem growth 2)
 *   vm_file      mmap a 3 MiB file (reserved 3), then reads it (file growth 3)
 *   vm_dontneed  madvise DONTNEED the first 4 of the 16 (advised 4; anon released 4 inside)
 *   vm_remap     mremap 16 -> 24 (reserved 8), then 24 -> 20 (unmapped 4)
 *   vm_unmap     munmap the 20 (unmapped 20; anon released 4 inside: MiB 4..8)
 *   vm_brk       brk +2 (reserved 2), writes it (anon growth 2), brk -2 (unmapped 2; anon
 *                released 2 inside)
 *   vm_fail      munmap of a misaligned address (EINVAL) and a 1 PiB anon mmap (ENOMEM):
 *                two failed calls, nothing reserved
 * Every mapping is made with huge pages off (wl_map's madvise), so each of those mappings
 * also makes one madvise call of another kind.
 *
 * Start/stop protocol: see workload.h ("ready", SIGUSR1, work, "done", SIGUSR2).
 */
#include "workload.h"
#include <sys/syscall.h>

#define USAGE "vmcalls [--now] [--exit] [DIR]"

__attribute__((noinline)) char *vm_reserve(void)
{
	return wl_map_anon(16 * WL_MIB);
}

__attribute__((noinline)) void vm_touch(char *p)
{
	wl_write_pages(p, 8 * WL_MIB);
}

__attribute__((noinline)) void vm_populate(void)
{
	wl_map(4 * WL_MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
	       -1);
}

__attribute__((noinline)) void vm_shared(void)
{
	char *p = wl_map(2 * WL_MIB, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1);

	wl_write_pages(p, 2 * WL_MIB);
}

__attribute__((noinline)) unsigned long vm_file(int fd)
{
	char *p = wl_map(3 * WL_MIB, PROT_READ, MAP_PRIVATE, fd);

	return wl_read_pages(p, 3 * WL_MIB);
}

__attribute__((noinline)) void vm_dontneed(char *p)
{
	if (madvise(p, 4 * WL_MIB, MADV_DONTNEED))
		wl_die("madvise(MADV_DONTNEED)");
}

/*
 * mremap and brk go through syscall(2), a frameless leaf: glibc's mremap wrapper keeps a
 * frame in %rsp only and its sbrk uses %rbp as a register, so a frame-pointer walk from them
 * loses this function (README, "Stacks").
 */
__attribute__((noinline)) char *vm_remap(char *p)
{
	p = (char *)syscall(SYS_mremap, p, 16 * WL_MIB, 24 * WL_MIB, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		wl_die("mremap");
	if ((char *)syscall(SYS_mremap, p, 24 * WL_MIB, 20 * WL_MIB, 0) == MAP_FAILED)
		wl_die("mremap");
	return p;
}

__attribute__((noinline)) void vm_unmap(char *p)
{
	if (munmap(p, 20 * WL_MIB))
		wl_die("munmap");
}

__attribute__((noinline)) void vm_brk(void)
{
	char *start = (char *)syscall(SYS_brk, 0);

	if ((char *)syscall(SYS_brk, start + 2 * WL_MIB) != start + 2 * WL_MIB)
		wl_die("brk");
	wl_write_pages(start, 2 * WL_MIB);
	if ((char *)syscall(SYS_brk, start) != start)
		wl_die("brk");
}

__attribute__((noinline)) void vm_fail(void)
{
	if (munmap((char *)WL_PAGE + 1, WL_PAGE) == 0 || errno != EINVAL)
		wl_die("munmap of a misaligned address did not fail with EINVAL");
	if (mmap(NULL, 1ULL << 50, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) !=
	    MAP_FAILED)
		wl_die("a 1 PiB mmap did not fail");
}

int main(int argc, char **argv)
{
	struct wl_args a;
	char *p;
	int fd;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs > 1)
		wl_usage(USAGE);
	fd = wl_temp_file_anywhere(a.nargs ? a.args[0] : "/var/tmp", 3 * WL_MIB);

	wl_wait_start(&a);
	p = vm_reserve();
	vm_touch(p);
	vm_populate();
	vm_shared();
	vm_file(fd);
	vm_dontneed(p);
	p = vm_remap(p);
	vm_unmap(p);
	vm_brk();
	vm_fail();
	wl_finish(&a);
}
