"""Seed scenarios of category gating (seed 001 Category Gating 预过滤, seed 000 decisions 2 and 6)."""

from __future__ import annotations

import pytest

from custom_components.context_retrieval.core.gating import category_for_type_hint
from custom_components.context_retrieval.core.models import CommandSpec, Device

from .conftest import OFF, ON, cmd, targets
from .conftest import run_commands as run

# seed 000 decision 2: TYPE_TO_CATEGORY, verbatim.
SEED_TYPE_TABLE = {
    "灯": "Light",
    "灯光": "Light",
    "照明": "Light",
    "台灯": "Light",
    "窗帘": "Blind",
    "遮阳": "Blind",
    "百叶窗": "Blind",
    "空调": "AirConditioner",
    "冷气": "AirConditioner",
    "开关": "Switch",
    "插座": "SmartPlug",
    "电视": "Television",
    "音响": "NetworkAudio",
    "风扇": "Fan",
    "洗衣机": "Washer",
    "充电器": "Charger",
}


@pytest.mark.parametrize(("word", "category"), SEED_TYPE_TABLE.items())
def test_seed_type_table_maps_every_word(word, category):
    assert category_for_type_hint(word) == category


def test_gate_drops_other_categories_even_when_their_name_matches(home):
    # 落地台灯 is a SmartPlug: under a Light gate its name cannot bring it back.
    (result,) = run(home, "打开台灯", cmd("打开", n="台灯", t="Light"))
    categories = {d.id: d.category for d in home}
    assert result.candidates
    assert "plug-1" not in {c.entity_id for c in result.candidates}
    assert {categories[c.entity_id] for c in result.candidates} == {"Light"}
    assert result.meta["gating"] == "Light"


def test_a_set_named_by_a_name_of_things_takes_them_whatever_drives_them(home):
    # 灭蚊灯 ends with 灯 but the mosquito lamps are switched sockets: all of them are the set.
    lamps = [
        Device(id=f"mosquito-{room}", name=f"{room}灭蚊灯", room=room, category="Switch", commands=[ON])
        for room in ("阳台", "卧室")
    ]
    (result,) = run([*home, *lamps], "灭蚊灯全部打开", cmd("打开", n="灭蚊灯", t="Light", q="all"))
    assert set(targets(result)) == {"mosquito-阳台", "mosquito-卧室"}
    assert "bulk_name_unmatched" not in result.meta


def test_ungated_name_search_covers_every_category(home):
    # type hint Unknown: the same name reaches the SmartPlug by keyword.
    (result,) = run(home, "打开落地台灯", cmd("打开", n="落地台灯", t="Unknown"))
    assert result.candidates[0].entity_id == "plug-1"
    assert "name_hit" in result.candidates[0].reasons
    assert "type_hit" not in result.candidates[0].reasons


def test_gate_with_no_device_of_the_category_falls_back_to_everything(home):
    (result,) = run(home, "打开洗衣机", cmd("打开", n="洗衣机", t="Washer"))
    assert result.meta["gating_fallback"] == "Washer"
    assert result.meta["gating"] is None
    assert result.candidates


OPEN_STATE = CommandSpec("main-contactSensor-contact", "门窗开合状态", readable=True)
MOTION = CommandSpec("main-motionSensor-motion", "人体移动", readable=True)


def test_a_sensor_gate_keeps_kinds_of_sensor():
    home = [
        Device(id="w-1", name="主卧窗户", room="主卧", category="ContactSensor", commands=[OPEN_STATE]),
        Device(id="m-1", name="人体感应", room="过道", category="MotionSensor", commands=[MOTION]),
        Device(id="l-1", name="主灯", room="主卧", category="Light", commands=[ON]),
    ]
    (result,) = run(home, "窗户开着吗", cmd("查询状态", n="窗户", t="Sensor"))
    assert result.meta["gating"] == "Sensor"
    assert {c.entity_id for c in result.candidates} <= {"w-1", "m-1"}
    assert result.candidates[0].entity_id == "w-1"


def test_a_set_of_central_heating_leaves_the_space_heaters_alone():
    """楼上的暖气关了: the radiators; the electric heater (电暖器) is a thing apart, said by its own name."""
    radiators = [
        Device(id=f"trv-{room}", name=f"{room}暖气", room=room, category="Thermostat", commands=[ON, OFF])
        for room in ("客厅", "主卧")
    ]
    heater = Device(id="heater", name="电暖器", room="客厅", category="Thermostat", commands=[ON, OFF])
    home = [*radiators, heater]
    (every,) = run(home, "暖气都关了", cmd("关闭", n="暖气", t="Thermostat", q="all"))
    assert sorted(targets(every)) == ["trv-主卧", "trv-客厅"]
    (named,) = run(home, "电暖器关了", cmd("关闭", n="电暖器"))
    assert named.candidates[0].entity_id == "heater"
