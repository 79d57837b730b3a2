"""Settings: precedence, sources, bad values, backend choice, platform dirs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import platformdirs
import pytest

from ovhooks.settings.config import load_settings, mask_secret
from ovhooks.settings.layout import user_dir


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        "HOME": str(tmp_path / "home"),
        "OVHOOKS_CONFIG": str(tmp_path / "config.toml"),
        "OPENVIKING_CLI_CONFIG_FILE": str(tmp_path / "ovcli.conf"),
        **extra,
    }


def test_precedence_flag_env_file_ovcli_default(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        'url = "http://file:1"\nidle_ttl_s = 60\nrecall = false\n'
    )
    (tmp_path / "ovcli.conf").write_text(
        json.dumps({"url": "http://ovcli:1", "api_key": "from-ovcli-123456", "user_id": "bob"})
    )
    s = load_settings(_env(tmp_path, OPENVIKING_URL="http://env:1"), {"url": "http://flag:1"})
    assert s.url == "http://flag:1" and s.sources["url"] == "flag"
    s = load_settings(_env(tmp_path, OPENVIKING_URL="http://env:1/"))
    assert s.url == "http://env:1" and s.sources["url"] == "env:OPENVIKING_URL"
    s = load_settings(_env(tmp_path))
    assert s.url == "http://file:1" and s.sources["url"].startswith("config:")
    assert s.idle_ttl_s == 60.0 and s.recall is False
    assert s.api_key == "from-ovcli-123456" and s.sources["api_key"].startswith("ovcli:")
    assert s.user == "bob"
    assert s.active_window_s == 120.0 and s.sources["active_window_s"] == "default"


def test_bad_values_become_warnings_not_crashes(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("this is = = not toml")
    s = load_settings(
        _env(
            tmp_path, OVHOOKS_IDLE_TTL_S="soon", OVHOOKS_DETACH="maybe", OVHOOKS_CAPTURE_MODE="all"
        )
    )
    assert s.idle_ttl_s == 1800.0 and s.detach is True and s.capture_mode == "semantic"
    joined = " ".join(s.warnings)
    assert "idle_ttl_s" in joined and "detach" in joined and "capture_mode" in joined
    assert "config file" in joined


def test_unknown_config_keys_are_reported(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("[ovhooks]\nidle_tll_s = 5\n")
    s = load_settings(_env(tmp_path))
    assert any("idle_tll_s" in w for w in s.warnings)


@pytest.mark.parametrize(
    ("env", "backend"),
    [
        ({}, "local"),
        ({"OPENVIKING_URL": "http://127.0.0.1:1933"}, "openviking"),
        ({"OPENVIKING_URL": "http://x:1", "OVHOOKS_BACKEND": "local"}, "local"),
        ({"OVHOOKS_BACKEND": "openviking"}, "openviking"),
    ],
)
def test_backend_choice_and_reason(tmp_path: Path, env: dict[str, str], backend: str) -> None:
    s = load_settings(_env(tmp_path, **env))
    assert s.backend == backend and s.why_backend


def test_settings_are_read_only_and_mask_keys(tmp_path: Path) -> None:
    s = load_settings(_env(tmp_path, OPENVIKING_API_KEY="sk-very-secret-value-1234"))
    with pytest.raises(AttributeError):
        s.url = "x"
    assert "sk-very-secret-value-1234" not in json.dumps(s.as_dict())
    assert mask_secret("short") == "****"
    assert s.replace(idle_ttl_s=5.0).idle_ttl_s == 5.0 and s.idle_ttl_s == 1800.0


def test_user_dirs_match_platformdirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"HOME": str(tmp_path)}
    monkeypatch.setenv("HOME", str(tmp_path))
    assert user_dir("state", env) == platformdirs.user_state_dir("ovhooks", appauthor=False)
    assert user_dir("data", env) == platformdirs.user_data_dir("ovhooks", appauthor=False)
    assert user_dir("config", env) == platformdirs.user_config_dir("ovhooks", appauthor=False)
    env["XDG_STATE_HOME"] = str(tmp_path / "xdg")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert user_dir("state", env) == platformdirs.user_state_dir("ovhooks", appauthor=False)


def test_a_named_config_that_is_missing_is_warned_about(tmp_path: Path) -> None:
    s = load_settings(_env(tmp_path))  # OVHOOKS_CONFIG names tmp_path/config.toml: absent
    assert any("OVHOOKS_CONFIG" in w and "does not exist" in w for w in s.warnings), s.warnings


def test_a_config_that_is_a_folder_is_warned_about(tmp_path: Path) -> None:
    (tmp_path / "config.toml").mkdir()
    s = load_settings(_env(tmp_path))
    assert any("is not a file" in w for w in s.warnings), s.warnings
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    (tmp_path / "xdg" / "ovhooks" / "config.toml").mkdir(parents=True)
    s = load_settings(env)
    assert any("is not a file" in w for w in s.warnings), s.warnings


def test_the_default_config_simply_absent_is_silent(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert not [w for w in load_settings(env).warnings if "config" in w]


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("url = 5", "url"),
        ("api_key = 12345678", "api_key"),
        ("user = true", "user"),
        # an integer no float holds: a warning, not an OverflowError in every command
        ("commit_token_threshold = " + "9" * 400, "commit_token_threshold"),
        ("recall_min_confidence = " + "9" * 400, "recall_min_confidence"),
        ("idle_ttl_s = 1e400", "idle_ttl_s"),
    ],
)
def test_wrongly_typed_values_are_warned_about(tmp_path: Path, line: str, field: str) -> None:
    (tmp_path / "config.toml").write_text(line + "\n")
    s = load_settings(_env(tmp_path))
    assert s.sources[field] != f"config:{tmp_path / 'config.toml'}"
    assert any(w.startswith(f"{field} from config:") for w in s.warnings), s.warnings


def test_ovcli_keys_in_order_of_preference_and_a_bad_file_value_falls_through(
    tmp_path: Path,
) -> None:
    (tmp_path / "config.toml").write_text("url = 5\n")  # not a string: ignored, with a warning
    conf = {"url": "http://ovcli:2", "account": " ", "account_id": "acme", "peer_id": "p1"}
    (tmp_path / "ovcli.conf").write_text(json.dumps({**conf, "user": "ann", "user_id": "bob"}))
    s = load_settings(_env(tmp_path))
    assert s.url == "http://ovcli:2" and s.sources["url"].startswith("ovcli:")
    assert any(w.startswith("url from config:") for w in s.warnings)
    assert (s.account, s.user, s.actor_peer) == ("acme", "ann", "p1")
    (tmp_path / "ovcli.conf").write_text("[1, 2]")  # JSON, but not an object: nothing from it
    assert load_settings(_env(tmp_path)).sources["url"] == "default"


def test_the_project_keys_the_readme_names_are_the_ones_read(tmp_path: Path) -> None:
    """README, "Projects and teams": ``actor_peer`` in config.toml, ``actor_peer_id`` in
    OpenViking's ovcli.conf (the first spelling was named for both and refused in one)."""
    (tmp_path / "config.toml").write_text('actor_peer = "widget"\n')
    s = load_settings(_env(tmp_path))
    assert s.actor_peer == "widget" and not s.warnings, s.warnings
    (tmp_path / "config.toml").write_text("")
    (tmp_path / "ovcli.conf").write_text(json.dumps({"actor_peer_id": "gadget"}))
    assert load_settings(_env(tmp_path)).actor_peer == "gadget"
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert "`actor_peer` in the config file, `actor_peer_id` in OpenViking's `ovcli.conf`" in readme


def test_the_hook_budget_is_a_setting_with_a_warning_when_unreadable(tmp_path: Path) -> None:
    """OVHOOKS_HOOK_DEADLINE_S was read by the hook runner alone: status did not list it and
    a value like 'abc' was dropped without a word."""
    assert load_settings(_env(tmp_path, OVHOOKS_HOOK_DEADLINE_S="12")).hook_deadline_s == 12.0
    s = load_settings(_env(tmp_path, OVHOOKS_HOOK_DEADLINE_S="abc"))
    assert s.hook_deadline_s == 0.0
    assert any("OVHOOKS_HOOK_DEADLINE_S" in w for w in s.warnings), s.warnings
    assert "hook_deadline_s" in s.as_dict()


@pytest.mark.parametrize("home", ["", "relhome", "~", "./x"])
def test_a_home_that_is_no_absolute_path_is_the_accounts_own(
    home: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fault campaign: HOME="" put the store at /.local/share/ovhooks, a relative HOME in
    # the project the hook ran in. The account's home is what a login would give.
    import pwd

    from ovhooks.settings.layout import home_dir

    account = pwd.getpwuid(os.getuid()).pw_dir
    assert home_dir({"HOME": home}) == account
    assert home_dir({}) == account
    assert user_dir("state", {"HOME": home}) == os.path.join(account, ".local/state/ovhooks")
    assert home_dir({"HOME": "/somewhere/else"}) == "/somewhere/else"
