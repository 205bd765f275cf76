"""tests/sim_gpu_diff.py reads its own rows back: counts, differences and the page."""

import json

from tests import sim_gpu_diff as D


def test_the_summary_counts_each_launch_once_and_lists_what_differs(tmp_path):
    rows = [
        {
            "kernel": "a/k",
            "case": "small",
            "gpu": "ran",
            "findings": {},
            "out": {"sim_vs_gpu": {"worst": 0.0}},
        },
        {
            "kernel": "b/k",
            "case": "small",
            "gpu": "ran",
            "findings": {"race": 3},
            "out": {"sim_vs_gpu": {"differ": 2}},
        },
        {"kernel": "c/k", "case": "small", "gpu": "not run: oob", "findings": {"oob": 1}},
        {"kernel": "d/k", "case": "small", "raised": "CudaAPIError: misaligned"},
        {
            "kernel": "e/k",
            "case": "small",
            "gpu": "ran",
            "findings": {},
            "out": {"sim_vs_gpu": {"worst": 2e-5}},
        },
    ]
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    s = D.summary(path)
    assert (s["launches"], s["ran"], s["not_run"], s["raised"]) == (5, 3, 1, 1)
    assert [d["kernel"] for d in s["disagree"]] == ["b/k", "e/k"]  # floats beyond 1e-5
    page = D.markdown(path, "a test GPU")
    assert "| b/k | small | out | 2 elements | race 3 |" in page
    assert "- d/k: CudaAPIError: misaligned" in page and "- not run: oob: 1 launches" in page
