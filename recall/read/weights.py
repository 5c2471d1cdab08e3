"""The constants a search ranks by, each with its reason, in the order a search uses them.

The recipe a request can change (method, channel weights, speaker and date boosts, relevance
floor) is `recall.read.fusion.FusionConfig`; the decay of a memory's priority over time is
`recall.decay`. Everything else that shapes a ranking is here.
"""

from __future__ import annotations

import math

# ---- fallback scopes (recall.read.search) ---------------------------------------------------

# `graph: true` on a recipe that leaves the graph out gives it a quarter of BM25's say
GRAPH_OPT_IN_WEIGHT = 0.25
# own hits all below this confidence are weak: the search also reads the fallback scopes
WEAK_CONFIDENCE = 0.5
# how many of the fused head are checked for a convincing hit before the fallback
WEAK_CHECK_DEPTH = 5

# ---- candidates per channel (recall.read.channels) ------------------------------------------

# RRF needs depth to reward ids that both channels find but neither ranks first
CANDIDATE_FACTOR = 4
# a small `top_k` still gets enough candidates for the fusion to choose from
MIN_CANDIDATES = 50
# a large `top_k` stops here: deeper candidates cost store reads and rarely reach the head
MAX_CANDIDATES = 200
# scores equal to this many decimals are ties, ordered by id (recall.read.ties): a dense score
# drifts by ~1e-8 between an unindexed and an indexed segment
SCORE_DECIMALS = 6
# candidates fetched past a channel's cut, so the group tied at the cut is usually seen whole
TIE_MARGIN = 10
# a tied group reaching past this many candidates (one sentence stored hundreds of times) is cut
# where the store cuts it
MAX_TIE_FETCH = 1000

# ---- fusion (recall.read.fusion) ------------------------------------------------------------

# the usual RRF constant: a top rank earns little more than the next few
RRF_K = 60
# the graph channel's score of an entity named once (entity weight damped by 1/log2(1 + 2))
GRAPH_FULL_SCORE = 1 / math.log2(3)
# below this best score the graph channel's list is led by an entity the whole scope names
GRAPH_MIN_SCORE = 0.3

# ---- context and confidence (recall.read.context) -------------------------------------------

# two memories of one scope written within this many seconds of event time are one session
SESSION_GAP_S = 3 * 3600.0
# how far down each source channel lends score to its neighbouring turns
CONTEXT_DEPTH = 20
# the default embedder's cosine of a query and an unrelated memory stays below this
COSINE_FLOOR = 0.25
# and a paraphrase of the same fact sits above this: full confidence
COSINE_FULL = 0.6
# a Chinese hit sharing no two-character word with the question reaches the relevance floor
# only by covering this share of its content characters (recall.read.ranking zh_reach; chosen
# leave one kind out, bench/zh_floor_fit.py: 0.45 and 0.5 replay alike)
ZH_UNPAIRED_REACH = 0.5
# an English question is answered at all only when a hit of the window holds this share of its
# words, or its calibrated cosine or the graph reaches the floor: one common word of three
# ("mountain" of "the tallest mountain in Africa") answered a third of unrelated questions
# (recall.read.ranking en_reach; chosen leave one kind out, bench/en_floor_fit.py)
EN_REACH_SHARE = 0.6
# people mention an event in the sessions after it: a named period also covers these days
DATE_SLACK_DAYS = 31

# ---- graph slot evidence (recall.read.evidence) ---------------------------------------------

# the graph's holding answer leads a stale statement of its slot by more than decay and boosts
# (about 10 % apart) can undo
LEAD_MARGIN = 1.25
# a statement that no longer holds keeps half its score: still findable, not first (the graph's
# stale statements, and a replaced memory whose replacement is no candidate)
STALE_FACTOR = 0.5
# the graph's word that a chunk answers, on the confidence scale: above the default floors
GRAPH_CONFIDENCE = 0.6

# ---- ranking (recall.read.ranking) ----------------------------------------------------------

# the caller's own memories rank above other users' on otherwise close scores
USER_BOOST = 1.2
# a turn found as the neighbour of a hit takes this share of that hit's confidence
CONTEXT_SHARE = 0.8
# untrusted memories (tool output) rank below trusted ones on otherwise equal scores
UNTRUSTED_FACTOR = 0.9
# a memory whose value of the slot a question asks was replaced (its `stale` record; it stays
# current for its other facts) ranks this far below the memory that replaced it, a margin the
# ~10 % moves of decay and boosts do not undo
BELOW_REPLACEMENT = 0.8
# only the head of the fused order can reach `top_k` after the boosts: this many per hit
RANK_WINDOW_FACTOR = 3
# and never fewer than this, so a small `top_k` still reorders near-ties
MIN_RANK_WINDOW = 30

# ---- auto-recall bundle (recall.read.bundle) ------------------------------------------------

# a prompt is better off with no memory than an unrelated one; a higher floor starts to drop
# right answers
BUNDLE_MIN_SCORE = 0.4
