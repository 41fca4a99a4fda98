#include "textflag.h"

// func pause()
// One PAUSE, as natp_work's __builtin_ia32_pause between clock reads.
TEXT ·pause(SB),NOSPLIT,$0-0
	PAUSE
	RET
