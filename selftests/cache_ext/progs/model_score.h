/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by model_score.bpf.c and test_ctl.c. */
#ifndef __MODEL_SCORE_H
#define __MODEL_SCORE_H

#define MODEL_SCORE_FEATURES 9	/* the LearnedCache features */

struct model_score_args {
	long long features[MODEL_SCORE_FEATURES];
	long long logit;
	long long threshold;
	int ret;
	int ret_threshold;
	int ret_short;
	int ret_missing;
};

#endif /* __MODEL_SCORE_H */
