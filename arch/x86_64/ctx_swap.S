/* ctx_swap(void **save, void *next): the whole context switch.
 *
 * The System V ABI lets a called function clobber everything but rbx, rbp
 * and r12-r15 (and rsp), so those six are all a voluntary switch has to keep.
 * They are pushed on the current stack, the stack pointer is stored through
 * save, and the mirror image pops them from the next stack.  ctx_make()
 * builds a fresh stack in the same shape, with ctx_start as the return
 * address and the entry in r12 and its argument in r13.
 *
 * The switch ends with a jump to the popped return address, not a ret: a
 * ret is predicted from the top of the return-stack buffer, the call into
 * ctx_swap of the context being left, so it always mispredicted.  An
 * indirect jump is predicted from its own history, and contexts resume at
 * a few places only.  (Returns further up the resumed context's stack are
 * still predicted from the other context's calls.  The jump target is a
 * return address, not an endbr64: fine while Linux enforces no
 * indirect-branch tracking in user space.) */
	.text
	.globl	ctx_swap
	.type	ctx_swap, @function
	.p2align 4
ctx_swap:
	.cfi_startproc
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	popq	%rcx
	jmpq	*%rcx
	.cfi_endproc
	.size	ctx_swap, .-ctx_swap

/* First code run on a stack made by ctx_make: call r12(r13).  The entry never
 * returns; if it does, trap rather than run off the end of the stack. */
	.globl	ctx_start
	.type	ctx_start, @function
	.p2align 4
ctx_start:
	.cfi_startproc
	.cfi_undefined rip
	movq	%r13, %rdi
	callq	*%r12
	ud2
	.cfi_endproc
	.size	ctx_start, .-ctx_start

	.section .note.GNU-stack,"",@progbits
