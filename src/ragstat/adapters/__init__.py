"""Readers and backends for other tools (an OpenAI-compatible HTTP judge: `OpenAICompatibleJudge`)."""

from ragstat.adapters.judge_http import OpenAICompatibleJudge

__all__ = ["OpenAICompatibleJudge"]
