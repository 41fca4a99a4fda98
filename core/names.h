/* Per-platform names for every external symbol of the scheduler core.
 *
 * The core is compiled once per platform and both compilations are linked
 * into one program, so each external name gets the platform's prefix
 * (PLAT_SYM, from core/platform.h): rt_new becomes sim__rt_new or
 * nat__rt_new.  Code is written with the plain names.  A name missing here
 * is caught at link time (a duplicate symbol) and by the `names' test,
 * which checks that the policy libraries export nothing unprefixed. */
#ifndef SCHEDLAB_CORE_NAMES_H
#define SCHEDLAB_CORE_NAMES_H

/* core/lock.c */
#define rt_mutex_init PLAT_SYM(rt_mutex_init)
#define rt_lock_slow PLAT_SYM(rt_lock_slow)
#define rt_mutex_held PLAT_SYM(rt_mutex_held)
#define rt_note_init PLAT_SYM(rt_note_init)
#define rt_note_clear PLAT_SYM(rt_note_clear)
#define rt_note_sleep PLAT_SYM(rt_note_sleep)
#define rt_note_wakeup PLAT_SYM(rt_note_wakeup)
#define rt_note_tsleep PLAT_SYM(rt_note_tsleep)

/* core/why.c */
#define rt_why_init PLAT_SYM(rt_why_init)
#define rt_why_fini PLAT_SYM(rt_why_fini)
#define rt_why_g_bytes PLAT_SYM(rt_why_g_bytes)
#define rt_why_collect PLAT_SYM(rt_why_collect)
#define rt_why_ready_slow PLAT_SYM(rt_why_ready_slow)
#define rt_why_enq_slow PLAT_SYM(rt_why_enq_slow)
#define rt_why_deq_slow PLAT_SYM(rt_why_deq_slow)
#define rt_why_deq_p_slow PLAT_SYM(rt_why_deq_p_slow)
#define rt_why_run_slow PLAT_SYM(rt_why_run_slow)
#define rt_why_p_slow PLAT_SYM(rt_why_p_slow)
#define rt_why_p_with PLAT_SYM(rt_why_p_with)
#define rt_why_p_idle PLAT_SYM(rt_why_p_idle)
#define rt_why_m_slow PLAT_SYM(rt_why_m_slow)
#define rt_why_m_os PLAT_SYM(rt_why_m_os)
#define rt_why_m_new PLAT_SYM(rt_why_m_new)
#define rt_why_park_slow PLAT_SYM(rt_why_park_slow)
#define rt_why_took_slow PLAT_SYM(rt_why_took_slow)
#define rt_why_req_begin_slow PLAT_SYM(rt_why_req_begin_slow)
#define rt_why_req_end_slow PLAT_SYM(rt_why_req_end_slow)

/* core/mech.c */
#define rt_mech_init PLAT_SYM(rt_mech_init)
#define rt_mech_fini PLAT_SYM(rt_mech_fini)
#define rt_mech_collect PLAT_SYM(rt_mech_collect)
#define rt_mech_gq_take PLAT_SYM(rt_mech_gq_take)
#define rt_mech_gq_len PLAT_SYM(rt_mech_gq_len)
#define rt_mech_steal PLAT_SYM(rt_mech_steal)
#define rt_mech_runq PLAT_SYM(rt_mech_runq)
#define rt_mech_put PLAT_SYM(rt_mech_put)
#define rt_mech_run PLAT_SYM(rt_mech_run)
#define rt_mech_spinning PLAT_SYM(rt_mech_spinning)
#define rt_mech_sharedq PLAT_SYM(rt_mech_sharedq)
/* core/schedtrace.c */
#define rt_schedtrace PLAT_SYM(rt_schedtrace)
/* core/explore.c */
#define rt_explore_step PLAT_SYM(rt_explore_step)
#define rt_explore_deadlock PLAT_SYM(rt_explore_deadlock)
#define rt_explore_end PLAT_SYM(rt_explore_end)
#define rt_explore_fail PLAT_SYM(rt_explore_fail)

/* core/proc.c */
#define rt_new PLAT_SYM(rt_new)
#define rt_run PLAT_SYM(rt_run)
#define rt_checkdead PLAT_SYM(rt_checkdead)
#define rt_collect PLAT_SYM(rt_collect)
#define rt_draws PLAT_SYM(rt_draws)
#define rt_free PLAT_SYM(rt_free)
#define rt_mstart PLAT_SYM(rt_mstart)
#define rt_startm PLAT_SYM(rt_startm)
#define rt_startm_unlock PLAT_SYM(rt_startm_unlock)
#define rt_start_idle_or_need PLAT_SYM(rt_start_idle_or_need)
#define rt_stopm PLAT_SYM(rt_stopm)
#define rt_poller_forever PLAT_SYM(rt_poller_forever)
#define rt_mt_switch PLAT_SYM(rt_mt_switch)
#define rt_wakep PLAT_SYM(rt_wakep)
#define rt_wakep_for PLAT_SYM(rt_wakep_for)
#define rt_wakep_node PLAT_SYM(rt_wakep_node)
#define rt_claim_spinner PLAT_SYM(rt_claim_spinner)
#define rt_release_spinner PLAT_SYM(rt_release_spinner)
#define rt_startm_spinning_unlock PLAT_SYM(rt_startm_spinning_unlock)
#define rt_count_steal PLAT_SYM(rt_count_steal)
#define rt_start_idle_p PLAT_SYM(rt_start_idle_p)
#define rt_resetspinning PLAT_SYM(rt_resetspinning)
#define rt_resetspinning_quiet PLAT_SYM(rt_resetspinning_quiet)
#define rt_becomespinning PLAT_SYM(rt_becomespinning)
#define rt_trybecomespinning PLAT_SYM(rt_trybecomespinning)
#define rt_dropp PLAT_SYM(rt_dropp)
#define rt_time_held PLAT_SYM(rt_time_held)
#define rt_time_released PLAT_SYM(rt_time_released)
#define rt_time_split PLAT_SYM(rt_time_split)
#define rt_acquirep PLAT_SYM(rt_acquirep)
#define rt_releasep PLAT_SYM(rt_releasep)
#define rt_pidleput PLAT_SYM(rt_pidleput)
#define rt_pidleget PLAT_SYM(rt_pidleget)
#define rt_pidleget_near PLAT_SYM(rt_pidleget_near)
#define rt_pidleget_this PLAT_SYM(rt_pidleget_this)
#define rt_p_is_idle PLAT_SYM(rt_p_is_idle)
#define rt_globrunqgrow PLAT_SYM(rt_globrunqgrow)
#define rt_globrunqputbatch PLAT_SYM(rt_globrunqputbatch)
#define rt_globrunqget_from PLAT_SYM(rt_globrunqget_from)
#define rt_globrunqtake_slow PLAT_SYM(rt_globrunqtake_slow)
#define rt_ready PLAT_SYM(rt_ready)
#define rt_yield_global PLAT_SYM(rt_yield_global)
#define rt_park_commit PLAT_SYM(rt_park_commit)
#define rt_sleep PLAT_SYM(rt_sleep)
#define rt_panic PLAT_SYM(rt_panic)
#define rt_cut PLAT_SYM(rt_cut)
#define rt_newg PLAT_SYM(rt_newg)
#define rt_startg PLAT_SYM(rt_startg)
#define rt_sleep_park PLAT_SYM(rt_sleep_park)
#define rt_mem_charge PLAT_SYM(rt_mem_charge)

/* core/trace.c */
#define rt_trace_rec PLAT_SYM(rt_trace_rec)
#define rt_trace_init PLAT_SYM(rt_trace_init)
#define rt_trace_now PLAT_SYM(rt_trace_now)
#define rt_trace_rec_at PLAT_SYM(rt_trace_rec_at)
#define rt_trace_block PLAT_SYM(rt_trace_block)
#define rt_trace_wake PLAT_SYM(rt_trace_wake)
#define rt_trace_get PLAT_SYM(rt_trace_get)
#define rt_trace_free PLAT_SYM(rt_trace_free)
#define rt_trace_runqlen PLAT_SYM(rt_trace_runqlen)

/* core/runq.c */
#define rt_runq_init PLAT_SYM(rt_runq_init)
#define rt_runqputslow PLAT_SYM(rt_runqputslow)
#define rt_runqget_lifo PLAT_SYM(rt_runqget_lifo)
#define rt_sharedq_put PLAT_SYM(rt_sharedq_put)
#define rt_sharedq_get PLAT_SYM(rt_sharedq_get)
#define rt_sharedq_putlist PLAT_SYM(rt_sharedq_putlist)
#define rt_sharedq_get_ready_by PLAT_SYM(rt_sharedq_get_ready_by)
#define rt_p_has_work PLAT_SYM(rt_p_has_work)
#define rt_runqempty PLAT_SYM(rt_runqempty)
#define rt_runqempty_peek PLAT_SYM(rt_runqempty_peek)
#define rt_runqlen PLAT_SYM(rt_runqlen)
#define rt_runqsteal PLAT_SYM(rt_runqsteal)
#define rt_steal_order_reset PLAT_SYM(rt_steal_order_reset)
#define rt_steal_order_free PLAT_SYM(rt_steal_order_free)
#define rt_steal_order_start PLAT_SYM(rt_steal_order_start)

/* core/chan.c */
#define rt_chan_new PLAT_SYM(rt_chan_new)
#define rt_chan_free PLAT_SYM(rt_chan_free)
#define rt_chansend PLAT_SYM(rt_chansend)
#define rt_chanrecv PLAT_SYM(rt_chanrecv)
#define rt_chanclose PLAT_SYM(rt_chanclose)
#define rt_chansend_resume PLAT_SYM(rt_chansend_resume)
#define rt_chanrecv_resume PLAT_SYM(rt_chanrecv_resume)
#define rt_select PLAT_SYM(rt_select)
#define rt_select_resume PLAT_SYM(rt_select_resume)

/* core/sync.c */
#define rt_gmutex_new PLAT_SYM(rt_gmutex_new)
#define rt_gmutex_lock PLAT_SYM(rt_gmutex_lock)
#define rt_gmutex_unlock PLAT_SYM(rt_gmutex_unlock)
#define rt_waitgroup_new PLAT_SYM(rt_waitgroup_new)
#define rt_waitgroup_add PLAT_SYM(rt_waitgroup_add)
#define rt_waitgroup_wait PLAT_SYM(rt_waitgroup_wait)

/* core/time.c */
#define rt_timers_init PLAT_SYM(rt_timers_init)
#define rt_timers_free PLAT_SYM(rt_timers_free)
#define rt_timer_add PLAT_SYM(rt_timer_add)
#define rt_run_timers PLAT_SYM(rt_run_timers)
#define rt_check_all_timers PLAT_SYM(rt_check_all_timers)
#define rt_timers_next PLAT_SYM(rt_timers_next)
#define rt_timers_stealable PLAT_SYM(rt_timers_stealable)
#define rt_timerproc PLAT_SYM(rt_timerproc)
#define rt_timerprocs_stop PLAT_SYM(rt_timerprocs_stop)
#define rt_wake_netpoller PLAT_SYM(rt_wake_netpoller)
#define rt_poll_block PLAT_SYM(rt_poll_block)
#define rt_idle PLAT_SYM(rt_idle)

/* core/sysmon.c */
#define rt_entersyscall PLAT_SYM(rt_entersyscall)
#define rt_entersyscallblock PLAT_SYM(rt_entersyscallblock)
#define rt_exitsyscall PLAT_SYM(rt_exitsyscall)
#define rt_sysmon PLAT_SYM(rt_sysmon)
#define rt_sysmon_wake PLAT_SYM(rt_sysmon_wake)

/* core/netpoll.c */
#define rt_netpoll_init PLAT_SYM(rt_netpoll_init)
#define rt_netpoll_start PLAT_SYM(rt_netpoll_start)
#define rt_netpoll_fini PLAT_SYM(rt_netpoll_fini)
#define rt_netpoll_any_waiters PLAT_SYM(rt_netpoll_any_waiters)
#define rt_netpoll_now PLAT_SYM(rt_netpoll_now)
#define rt_netpoll_wait PLAT_SYM(rt_netpoll_wait)
#define rt_netpoll_inject PLAT_SYM(rt_netpoll_inject)
#define rt_netpoll_open PLAT_SYM(rt_netpoll_open)
#define rt_netpoll_close PLAT_SYM(rt_netpoll_close)
#define rt_netpoll_fd_wait PLAT_SYM(rt_netpoll_fd_wait)

/* workloads/ (the workload run: wlr.h, interp.c, net.c) */
#define wlr_body PLAT_SYM(wlr_body)
#define wlr_g_run PLAT_SYM(wlr_g_run)
#define wlr_draw PLAT_SYM(wlr_draw)
#define wlr_draws PLAT_SYM(wlr_draws)
#define wlr_stream_init PLAT_SYM(wlr_stream_init)
#define wlr_objs_add PLAT_SYM(wlr_objs_add)
#define wlr_net_init PLAT_SYM(wlr_net_init)
#define wlr_net_free PLAT_SYM(wlr_net_free)
#define wlr_net_start PLAT_SYM(wlr_net_start)
#define wlr_net_next PLAT_SYM(wlr_net_next)
#define wlr_net_due PLAT_SYM(wlr_net_due)
#define wlr_net_deliver PLAT_SYM(wlr_net_deliver)
#define wlr_net_take PLAT_SYM(wlr_net_take)
#define wlr_net_accept PLAT_SYM(wlr_net_accept)
#define wlr_net_respond PLAT_SYM(wlr_net_respond)

/* policies/registry.c */
#define pol_count PLAT_SYM(pol_count)
#define pol_at PLAT_SYM(pol_at)
#define pol_find PLAT_SYM(pol_find)
#define rt_api_impl PLAT_SYM(rt_api)

/* policies/global.c */
#define pol_global PLAT_SYM(pol_global)

/* policies/steal.c */
#define pol_steal PLAT_SYM(pol_steal)

/* policies/numa.c */
#define pol_numa PLAT_SYM(pol_numa)

#endif
