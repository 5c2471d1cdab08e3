from recall.read.fusion import RRF_K, rrf, weighted_merge


def test_rrf_rewards_ids_found_by_both_channels():
    fused = rrf({'dense': [('a', 0.9), ('b', 0.8)], 'bm25': [('b', 7.0), ('c', 5.0)]})
    assert [f.id for f in fused] == ['b', 'a', 'c']
    assert fused[0].ranks == {'dense': 2, 'bm25': 1}
    assert fused[0].score == 1 / (RRF_K + 2) + 1 / (RRF_K + 1)


def test_rrf_weights_scale_each_channel_and_zero_drops_it():
    lists = {'dense': [('a', 0.9)], 'bm25': [('b', 3.0)]}
    assert [f.id for f in rrf(lists, weights={'dense': 1.0, 'bm25': 2.0})] == ['b', 'a']
    assert [f.id for f in rrf(lists, weights={'dense': 1.0, 'bm25': 0.0})] == ['a']


def test_rrf_counts_a_repeated_id_once_per_channel():
    fused = rrf({'dense': [('a', 0.9), ('a', 0.5)]})
    assert fused[0].score == 1 / (RRF_K + 1)


def test_rrf_breaks_ties_by_id_so_results_are_deterministic():
    fused = rrf({'dense': [('z', 1.0)], 'bm25': [('y', 1.0)]})
    assert [f.id for f in fused] == ['y', 'z']


def test_weighted_merge_normalises_scores_per_channel():
    fused = weighted_merge(
        {'dense': [('a', 0.9), ('b', 0.1)], 'bm25': [('b', 10.0), ('a', 9.0), ('c', 0.0)]}
    )
    scores = {f.id: round(f.score, 3) for f in fused}
    assert scores == {'a': 1.9, 'b': 1.0, 'c': 0.0}


def test_fusion_of_no_lists_is_empty():
    assert rrf({}) == []
    assert weighted_merge({'dense': []}) == []
