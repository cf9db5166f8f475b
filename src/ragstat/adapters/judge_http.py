"""An LLM judge over HTTP: an OpenAI-compatible ``POST {base_url}/chat/completions``.

Network I/O lives here, outside the metric kernels. :class:`OpenAICompatibleJudge`
has ``judge(prompt: str) -> str``, so it satisfies the judge protocol of
:mod:`ragstat.metrics.generation.judges` structurally (no import of it needed) and
can be passed to ``run_judge``. The standard library's ``urllib`` is imported only
when a call is made; the API key is read from an environment variable at call time.
Never used by the tests: they replay recorded responses.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from ragstat.errors import InputError

__all__ = ["OpenAICompatibleJudge"]


@dataclass(frozen=True)
class OpenAICompatibleJudge:
    """Optional HTTP judge for an OpenAI-compatible ``POST {base_url}/chat/completions``.

    The API key is read from ``os.environ[api_key_env]`` at call time;
    ``response_format`` (e.g. a ``json_schema`` block built from a pydantic
    schema) is passed through. Untested by design: tests use
    :class:`ragstat.metrics.generation.replay.ReplayJudge`.
    """

    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0
    temperature: float = 0.0
    response_format: dict[str, Any] | None = None

    def judge(self, prompt: str) -> str:
        import urllib.request  # lazy: never imported unless the backend is used

        key = os.environ.get(self.api_key_env)
        if not key:
            raise InputError(f"OpenAICompatibleJudge: set the {self.api_key_env} variable")
        body: dict[str, Any] = {
            "model": self.model,
            "temperature": self.temperature,
            "messages": [{"role": "user", "content": prompt}],
        }
        if self.response_format is not None:
            body["response_format"] = self.response_format
        req = urllib.request.Request(
            self.base_url.rstrip("/") + "/chat/completions",
            data=json.dumps(body).encode("utf-8"),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            payload = json.loads(resp.read().decode("utf-8"))
        try:
            content = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise InputError("OpenAICompatibleJudge: response has no choices[0].message") from None
        if not isinstance(content, str):
            raise InputError("OpenAICompatibleJudge: choices[0].message.content is not text")
        return content
