"""Provider settings: config file < environment < flags; the key never leaks; usage and prices."""

from __future__ import annotations

import argparse
import logging

import pytest
from provider_fixtures import SECRET, clean_env  # noqa: F401

from mmstudio.providers.settings import (
    Settings,
    add_provider_arguments,
    config_path,
    load_settings,
    settings_from_args,
)
from mmstudio.providers.usage import UsageLog, UsageRecord, cost

pytestmark = pytest.mark.usefixtures("clean_env")


@pytest.fixture
def config(tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    path.write_text(
        'base_url = "http://127.0.0.1:9999/v1"\napi_key = "sk-from-file"\ntimeout_s = 30\n'
        '[models]\nplanner = "file-planner"\ncoder = "file-coder"\n'
        "[capabilities]\nvision = false\n"
    )
    monkeypatch.setenv("MMSTUDIO_CONFIG", str(path))
    return path


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_provider_arguments(parser)
    return parser.parse_args(argv)


def test_defaults_without_file_or_environment():
    settings = load_settings()
    assert settings.base_url == "https://api.openai.com/v1"
    assert settings.api_key is None
    assert settings.models.image == "gpt-image-2.5-sunburst" and settings.models.video == "sora-2"


def test_the_default_chat_and_image_models_are_current_by_the_installed_sdk():
    import typing

    from openai.types import ImageModel
    from openai.types.shared import ChatModel

    from mmstudio.providers.lifecycle import lifecycle

    models = load_settings().models
    for role in ("planner", "coder", "judge"):
        name = getattr(models, role)
        assert name in typing.get_args(ChatModel)
        assert lifecycle(name, role).state == "current", lifecycle(name, role).describe()
    assert models.image in typing.get_args(ImageModel)
    assert lifecycle(models.image, "image").state == "current"


def test_the_sdk_notes_say_what_is_retired_and_what_replaces_it():
    import datetime as dt

    from mmstudio.providers.lifecycle import lifecycle, parse_date

    old = lifecycle("gpt-image-1", "image", dt.date(2026, 12, 1))
    assert old.state == "retired" and old.shutdown == dt.date(2026, 10, 23)
    assert "gpt-image-2.5-sunburst" in old.successors
    assert "gpt-image-1 shut down on 2026-10-23" in old.describe()
    # an announced shutdown is "deprecated" before its day and "retired" after it
    assert lifecycle("gpt-5.1", "planner", dt.date(2026, 12, 1)).state == "deprecated"
    assert lifecycle("gpt-5.1", "planner", dt.date(2027, 4, 2)).state == "retired"
    # every videos method is marked deprecated with the Sora API's shutdown date
    sora = lifecycle("sora-2", "video", dt.date(2026, 12, 1))
    assert sora.state == "retired" and sora.shutdown == dt.date(2026, 9, 24)
    assert lifecycle("sora-2", "video", dt.date(2026, 9, 1)).state == "deprecated"
    assert parse_date("retired on May 12, 2026.") == dt.date(2026, 5, 12)
    assert lifecycle("my-local-model", "planner").state == "current"


def test_the_config_file_is_read(config):
    settings = load_settings()
    assert config_path() == config
    assert settings.base_url == "http://127.0.0.1:9999/v1"
    assert settings.key() == "sk-from-file"
    assert settings.models.planner == "file-planner" and settings.timeout_s == 30
    assert settings.capabilities.vision is False and settings.capabilities.images is True


def test_environment_overrides_the_file(config, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:7000/v1")
    monkeypatch.setenv("MMSTUDIO_PLANNER_MODEL", "env-planner")
    monkeypatch.setenv("MMSTUDIO_DISABLE", "videos, structured-outputs")
    monkeypatch.setenv("MMSTUDIO_MAX_RETRIES", "7")
    settings = load_settings()
    assert settings.key() == "sk-from-env" and settings.base_url.endswith(":7000/v1")
    assert settings.models.planner == "env-planner" and settings.models.coder == "file-coder"
    assert not settings.capabilities.videos and not settings.capabilities.structured_outputs
    assert settings.max_retries == 7


def test_flags_override_the_environment(config, monkeypatch):
    monkeypatch.setenv("MMSTUDIO_PLANNER_MODEL", "env-planner")
    args = parse(
        "--base-url", "http://127.0.0.1:1234/v1", "--planner-model", "flag-planner",
        "--disable", "images", "--timeout", "5", "--max-retries", "0",
    )  # fmt: skip
    settings = settings_from_args(args)
    assert settings.base_url == "http://127.0.0.1:1234/v1"
    assert settings.models.planner == "flag-planner"
    assert not settings.capabilities.images
    assert settings.timeout_s == 5 and settings.max_retries == 0


def test_there_is_no_api_key_flag():
    with pytest.raises(SystemExit):
        parse("--api-key", "sk-x")


def test_unset_flags_change_nothing(config):
    assert settings_from_args(parse()) == load_settings()


def test_bad_values_are_one_line_errors(monkeypatch, tmp_path):
    monkeypatch.setenv("MMSTUDIO_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="provider setting timeout_s"):
        load_settings()
    monkeypatch.delenv("MMSTUDIO_TIMEOUT")
    damaged = tmp_path / "bad.toml"
    damaged.write_text("base_url = ")
    monkeypatch.setenv("MMSTUDIO_CONFIG", str(damaged))
    with pytest.raises(ValueError, match="not valid TOML"):
        load_settings()


def test_the_key_never_shows(caplog):
    settings = Settings(api_key=SECRET)
    caplog.set_level(logging.DEBUG)
    logging.getLogger("test").info("settings %s %r", settings, settings)
    public = settings.public()
    assert SECRET not in repr(settings) and SECRET not in str(settings)
    assert SECRET not in caplog.text
    assert "api_key" not in public and public["api_key_set"] is True
    assert SECRET not in settings.model_dump_json()


def test_costs_come_from_the_price_table():
    assert cost("gpt-5.1", input_tokens=1_000_000, output_tokens=100_000) == pytest.approx(2.25)
    assert cost("gpt-5.1-2025-11-13", input_tokens=1_000_000) == pytest.approx(1.25)
    assert cost("gpt-image-1", images=1, image_size="1024x1024") == pytest.approx(0.042)
    assert cost("sora-2", video_seconds=8) == pytest.approx(0.8)
    assert cost("my-local-llama", input_tokens=5000) is None


def test_usage_totals_per_stage_model_and_element():
    log = UsageLog()
    log.add(UsageRecord("plan", "", "gpt-5.1", 1000, 500, cost_usd=0.006))
    log.add(UsageRecord("image", "hero", "gpt-image-1", images=1, cost_usd=0.063))
    log.add(UsageRecord("layout", "", "local", 10, 10, cost_usd=None))
    summary = log.summary()
    assert summary["calls"] == 3
    assert summary["total"]["cost_usd"] == pytest.approx(0.069)
    assert summary["total"]["unpriced"] == 1
    assert summary["by_stage"]["image"]["images"] == 1
    assert log.totals("element")["hero"]["calls"] == 1
    assert log.as_rows()[0]["model"] == "gpt-5.1"
