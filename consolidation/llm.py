"""Optional LLM over an OpenAI-compatible `/chat/completions` endpoint (stdlib urllib, no SDK).

Off unless `KG_LLM_BASE_URL` and `KG_LLM_MODEL` are set. Every caller has an extractive fallback:
`complete` returns None on any failure, so a down or slow LLM never stops consolidation.
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.settings import Settings

log = logging.getLogger(__name__)

TIMEOUT_SECONDS = 30.0


def enabled(settings: Settings) -> bool:
    """True when an LLM endpoint is configured."""
    return bool(settings.llm_base_url and settings.llm_model)


def complete(settings: Settings, system: str, user: str, *, max_tokens: int = 1024) -> str | None:
    """The model's reply to one system + user prompt, or None (not configured, or it failed)."""
    if not enabled(settings):
        return None
    assert settings.llm_base_url is not None
    url = settings.llm_base_url.rstrip('/') + '/chat/completions'
    body = {
        'model': settings.llm_model,
        'messages': [{'role': 'system', 'content': system}, {'role': 'user', 'content': user}],
        'max_tokens': max_tokens,
        'temperature': 0.2,
    }
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method='POST',
        headers={'Content-Type': 'application/json'},
    )
    if settings.llm_api_key:
        request.add_header('Authorization', f'Bearer {settings.llm_api_key}')
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            data = json.loads(response.read())
        text = data['choices'][0]['message']['content']
    except (
        urllib.error.URLError,
        TimeoutError,
        OSError,
        ValueError,
        KeyError,
        IndexError,
        TypeError,
    ) as exc:
        log.warning('LLM call to %s failed (%s); using the extractive fallback', url, exc)
        return None
    if not isinstance(text, str) or not text.strip():
        log.warning('LLM at %s returned no text; using the extractive fallback', url)
        return None
    return text.strip()
