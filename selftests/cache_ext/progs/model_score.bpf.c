// SPDX-License-Identifier: GPL-2.0
/*
 * model_score: runs the cache_ext_ctl scoring kfuncs for the selftest,
 * as a BPF_PROG_TYPE_SYSCALL program run with BPF_PROG_RUN.
 */
#include "cache_ext.bpf.h"
#include "model_score.h"

char _license[] SEC("license") = "GPL";

extern int bpf_cache_ext_model_score(const char *name__str,
				     const s64 *features, u32 features__sz,
				     s64 *logit) __ksym;
extern int bpf_cache_ext_model_threshold(const char *name__str,
					 s64 *threshold) __ksym;

SEC("syscall")
int score(struct model_score_args *args)
{
	s64 features[MODEL_SCORE_FEATURES], logit = 0, threshold = 0;

	__builtin_memcpy(features, args->features, sizeof(features));
	args->ret = bpf_cache_ext_model_score("test_model", features,
					      sizeof(features), &logit);
	args->logit = logit;
	args->ret_threshold = bpf_cache_ext_model_threshold("test_model",
							    &threshold);
	args->threshold = threshold;
	/* Wrong feature count, unknown model. */
	args->ret_short = bpf_cache_ext_model_score("test_model", features,
						    sizeof(s64), &logit);
	args->ret_missing = bpf_cache_ext_model_score("no_such_model",
						      features,
						      sizeof(features), &logit);
	return 0;
}
