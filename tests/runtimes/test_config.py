"""The device's configuration: each runtime's options fill its own part, and the flat form gives them back."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from visor.runtimes.config import DEVICE_FLAGS, device_config, device_fields


def test_each_option_has_a_name_of_its_own() -> None:
    names = [flag.name for flag in DEVICE_FLAGS]
    assert len(names) == len(set(names))


def test_the_options_land_in_their_runtimes_part() -> None:
    config = device_config(
        {"runtime": "appium", "server_url": "http://127.0.0.1:9", "visualagent_dir": "/va", "profile": "big"}
        | {"capabilities": {"platformName": "Android"}}
    )
    assert config.runtime == "appium" and config.appium.server_url == "http://127.0.0.1:9"
    assert config.visualagent.folder == "/va" and config.sim.profile == "big"
    assert config.appium.capabilities == {"platformName": "Android"}


texts = st.none() | st.text(min_size=1, max_size=8)


@given(
    values=st.fixed_dictionaries(
        {flag.name: (st.booleans() if flag.is_flag else texts) for flag in DEVICE_FLAGS},
    )
)
def test_the_flat_form_gives_back_what_it_was_built_from(values: dict[str, object]) -> None:
    assert device_fields(device_config(values)) == values
