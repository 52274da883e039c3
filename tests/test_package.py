"""What hassfest and HACS validation check, checked here (neither runs offline)."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from awesomeversion import AwesomeVersion
from homeassistant.const import __version__ as ha_version
from homeassistant.helpers import selector
from PIL import Image

from custom_components.context_retrieval.const import DOMAIN

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "custom_components" / DOMAIN
MANIFEST = json.loads((PACKAGE / "manifest.json").read_text(encoding="utf-8"))
SERVICES = yaml.safe_load((PACKAGE / "services.yaml").read_text(encoding="utf-8"))
STRINGS = json.loads((PACKAGE / "strings.json").read_text(encoding="utf-8"))
TRANSLATIONS = {
    path.stem: json.loads(path.read_text(encoding="utf-8"))
    for path in (PACKAGE / "translations").glob("*.json")
}
HA_CONSTRAINTS = Path(selector.__file__).parents[1] / "package_constraints.txt"


def key_tree(data: object, prefix: str = "") -> set[str]:
    """Return every key path of nested dicts."""
    if not isinstance(data, dict):
        return set()
    paths = set()
    for key, value in data.items():
        path = f"{prefix}.{key}" if prefix else key
        paths |= {path} | key_tree(value, path)
    return paths


def test_manifest_keys_values_and_order():
    keys = list(MANIFEST)
    assert keys[:2] == ["domain", "name"]
    assert keys[2:] == sorted(keys[2:])
    assert MANIFEST["domain"] == DOMAIN
    for key in ("codeowners", "documentation", "issue_tracker", "version", "iot_class", "integration_type"):
        assert MANIFEST[key]
    assert all(owner.startswith("@") for owner in MANIFEST["codeowners"])
    assert MANIFEST["config_flow"] is True
    assert (PACKAGE / "config_flow.py").is_file()
    assert MANIFEST["dependencies"] == ["conversation", "llm", "websocket_api"]
    assert MANIFEST["iot_class"] in {
        "calculated",
        "local_polling",
        "local_push",
        "cloud_polling",
        "cloud_push",
    }
    assert MANIFEST["integration_type"] in {
        "device",
        "hub",
        "service",
        "system",
        "helper",
        "entity",
        "virtual",
    }
    assert AwesomeVersion(MANIFEST["version"]).valid
    for url in (MANIFEST["documentation"], MANIFEST["issue_tracker"]):
        assert url.startswith("https://")
        assert "home-assistant.io" not in url


def test_requirements_are_pinned_except_what_home_assistant_itself_pins():
    """Our own requirements are pinned; one Home Assistant ships is a lower bound its pin meets.

    An exact pin of numpy would conflict with the next Home Assistant release's own pin and
    keep the integration from loading.
    """
    constraints = dict(
        line.split("==", 1)
        for line in HA_CONSTRAINTS.read_text(encoding="utf-8").splitlines()
        if "==" in line
    )
    for requirement in MANIFEST["requirements"]:
        if ">=" in requirement:
            name, _, minimum = requirement.partition(">=")
            assert name in constraints, f"{requirement}: only what Home Assistant pins may float"
            assert AwesomeVersion(constraints[name]) >= AwesomeVersion(minimum)
            continue
        name, _, version = requirement.partition("==")
        assert version, f"{requirement} is not pinned"
        assert name not in constraints, f"Home Assistant pins {name}: use a lower bound"


def test_hacs_manifest():
    hacs = json.loads((REPO / "hacs.json").read_text(encoding="utf-8"))
    allowed = {
        "name",
        "content_in_root",
        "country",
        "filename",
        "hacs",
        "hide_default_branch",
        "homeassistant",
        "persistent_directory",
        "render_readme",
        "zip_release",
    }
    assert set(hacs) <= allowed
    assert hacs["name"] == MANIFEST["name"]
    assert AwesomeVersion(hacs["homeassistant"]) >= AwesomeVersion("2026.10.0")
    assert AwesomeVersion(ha_version) >= AwesomeVersion(hacs["homeassistant"])


def test_services_yaml_fields_have_valid_selectors_and_translations():
    for service, description in SERVICES.items():
        translated = STRINGS["services"][service]
        assert translated["name"]
        assert translated["description"]
        fields = (description or {}).get("fields", {})
        assert set(fields) == set(translated.get("fields", {}))
        for field, spec in fields.items():
            selector.validate_selector(spec["selector"])
            assert translated["fields"][field]["name"]
            assert translated["fields"][field]["description"]
    icons = json.loads((PACKAGE / "icons.json").read_text(encoding="utf-8"))
    assert set(icons["services"]) == set(SERVICES)


def test_strings_equal_the_english_translation_and_chinese_has_the_same_keys():
    assert {"en", "zh-Hans"} <= set(TRANSLATIONS)
    assert TRANSLATIONS["en"] == STRINGS
    assert key_tree(TRANSLATIONS["zh-Hans"]) == key_tree(STRINGS)


def translation_keys_used_in_code() -> set[str]:
    """Return every literal translation_key and the FIELD_ERRORS keys of the package's Python."""
    keys = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.keyword)
                and node.arg == "translation_key"
                and isinstance(node.value, ast.Constant)
            ):
                keys.add(node.value.value)
    from custom_components.context_retrieval.services import FIELD_ERRORS

    return keys | {key for key, _ in FIELD_ERRORS.values()}


@pytest.mark.parametrize("language", ["en", "zh-Hans", "zh-Hant"])
def test_every_exception_the_code_raises_is_translated_with_its_placeholders(language):
    from custom_components.context_retrieval.services import FIELD_ERRORS

    exceptions = TRANSLATIONS[language]["exceptions"]
    used = translation_keys_used_in_code() - {"embedding_backend"}  # the selector's translation key
    assert used <= set(exceptions)
    for key, placeholders in FIELD_ERRORS.values():
        assert set(re.findall(r"{(\w+)}", exceptions[key]["message"])) == set(placeholders)
    assert "{field}" in exceptions["unknown_field"]["message"]


def test_quality_scale_lists_bronze_and_silver_with_a_status():
    rules = yaml.safe_load((PACKAGE / "quality_scale.yaml").read_text(encoding="utf-8"))["rules"]
    bronze_and_silver = {
        "action-setup", "appropriate-polling", "brands", "common-modules", "config-flow-test-coverage",
        "config-flow", "dependency-transparency", "docs-actions", "docs-high-level-description",
        "docs-installation-instructions", "docs-removal-instructions", "entity-event-setup",
        "entity-unique-id", "has-entity-name", "runtime-data", "test-before-configure",
        "test-before-setup", "unique-config-entry", "action-exceptions", "config-entry-unloading",
        "docs-configuration-parameters", "docs-installation-parameters", "entity-unavailable",
        "integration-owner", "log-when-unavailable", "parallel-updates", "reauthentication-flow",
        "test-coverage",
    }  # fmt: skip
    assert bronze_and_silver <= set(rules)
    for rule in rules.values():
        status = rule if isinstance(rule, str) else rule["status"]
        assert status in {"done", "todo", "exempt"}
        if status != "done":
            assert rule["comment"]


def test_the_engine_imports_without_home_assistant():
    code = (
        "import sys; sys.modules['homeassistant'] = None\n"
        "from custom_components.context_retrieval.core import retrieve, build_vector_searcher\n"
        "print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "ok", done.stderr
    for path in (PACKAGE / "core").rglob("*.py"):
        assert "homeassistant" not in path.read_text(encoding="utf-8"), path


def test_the_brand_icon_is_shipped_at_the_sizes_home_assistant_serves():
    for name, size in (("icon.png", 256), ("icon@2x.png", 512)):
        with Image.open(PACKAGE / "brand" / name) as image:
            assert image.size == (size, size)
            assert image.format == "PNG"
