"""The secret scanner on LoCoMo dev text (false positives) and on the secret corpus (misses).

    .venv/bin/python bench/secret_scan.py

LoCoMo's turns, observations and session summaries hold no credentials, so every turn the
scanner masks something in is a false positive; the corpus (`tests/secret_corpus.py`) is all
secrets, so every sample left unmasked is a miss. Prints a table and writes
`bench/results/secret_scan.json`.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import load_locomo, print_table, write_json  # noqa: E402
from recall.write.scanner import redact  # noqa: E402
from tests.secret_corpus import SAMPLES  # noqa: E402


def _locomo_texts() -> dict[str, list[str]]:
    import json

    from bench._common import LOCOMO_PATH

    turns = [t.text for c in load_locomo() for t in c.turns]
    observations: list[str] = []
    summaries: list[str] = []
    for sample in json.loads(LOCOMO_PATH.read_text(encoding='utf-8')):
        for speakers in sample.get('observation', {}).values():
            for facts in speakers.values():
                observations += [f[0] for f in facts if isinstance(f, list) and f]
        summaries += [s for s in sample.get('session_summary', {}).values() if isinstance(s, str)]
    return {'turns': turns, 'observations': observations, 'summaries': summaries}


def main() -> None:
    """Scan LoCoMo dev text and the corpus; print the rates."""
    rows = []
    report: dict[str, object] = {}
    flagged: list[dict[str, object]] = []
    for name, texts in _locomo_texts().items():
        started = time.perf_counter()
        hits = Counter[str]()
        redacted = 0
        for text in texts:
            clean, kinds = redact(text)
            if kinds:
                redacted += 1
                hits.update(kinds)
                flagged.append({'set': name, 'text': text, 'redacted': clean})
        seconds = time.perf_counter() - started
        rate = redacted / len(texts) if texts else 0.0
        rows.append([f'locomo {name}', len(texts), redacted, f'{rate:.2%}', f'{seconds:.2f}'])
        report[name] = {'texts': len(texts), 'redacted': redacted, 'rate': rate, 'kinds': hits}
    missed = [text for text, secret in SAMPLES if secret in redact(text)[0]]
    rows.append(['secret corpus', len(SAMPLES), len(SAMPLES) - len(missed), '', ''])
    report['corpus'] = {'samples': len(SAMPLES), 'missed': missed}
    report['flagged'] = flagged
    print_table(['set', 'texts', 'redacted', 'rate', 'seconds'], rows)
    for item in flagged:
        print(f'  {item["set"]}: {item["text"]!r} -> {item["redacted"]!r}')
    write_json('secret_scan', report)


if __name__ == '__main__':
    main()
