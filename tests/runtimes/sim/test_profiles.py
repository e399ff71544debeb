"""Device profiles of the simulated phone: the format, its errors with line:column, the seeded generator."""

from __future__ import annotations

import io
from pathlib import Path

import imagehash
import pytest
from PIL import Image

from visor.clock import VirtualClock
from visor.errors import InputError
from visor.runtimes.sim.phone_data import PhoneData
from visor.runtimes.sim.pictures import picture
from visor.runtimes.sim.profile_generator import DUPLICATE_EVERY, generate, profile_yaml
from visor.runtimes.sim.profile_load import ProfileError, builtin_profiles, load_profile, resolve_profile
from visor.runtimes.sim.profile_model import Profile


def test_the_shipped_demo_profile_is_what_the_generator_writes() -> None:
    shipped = Path(resolve_profile("demo")).read_text(encoding="utf-8")
    assert shipped == profile_yaml(
        generate(photos=30, seed=7, now=VirtualClock().now(), name="demo"), photos=30, seed=7
    )
    assert builtin_profiles() == ["demo"] and load_profile(None).name == "demo"


def test_the_same_seed_generates_the_same_profile_and_another_seed_another() -> None:
    now = VirtualClock().now()
    first = generate(photos=300, seed=3, now=now)
    assert first == generate(photos=300, seed=3, now=now) != generate(photos=300, seed=4, now=now)
    profile = Profile.model_validate(first)
    assert len(profile.photos) == 300 and all(photo.date_added < "2026-01-01T09" for photo in profile.photos)
    big = [entry for entry in profile.files if entry.path.endswith("/Download/" + entry.path.rsplit("/", 1)[-1])]
    assert len([entry for entry in big if entry.size > 100_000_000]) >= 3


def test_generated_profiles_hold_near_duplicates_that_hash_close() -> None:
    profile = Profile.model_validate(generate(photos=140, seed=5, now=VirtualClock().now()))
    copies = [photo for photo in profile.photos if photo.picture.variant]
    assert len(copies) >= 140 // DUPLICATE_EVERY - 2
    for copy in copies[:10]:
        original = next(p for p in profile.photos if p.picture.seed == copy.picture.seed and not p.picture.variant)
        distance = _hash(original.picture.seed, 0) - _hash(copy.picture.seed, copy.picture.variant)
        assert distance <= 12, (original.name, copy.name)


def _hash(seed: int, variant: int) -> int:
    return imagehash.phash(Image.open(io.BytesIO(picture(seed, variant))))  # type: ignore[no-any-return]


def test_pictures_are_real_jpegs_drawn_the_same_every_time() -> None:
    assert picture(11) == picture(11) != picture(12)
    with Image.open(io.BytesIO(picture(11, 2))) as image:
        assert image.format == "JPEG" and image.size == (96, 72)


def test_a_broken_profile_names_each_problem_with_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.profile.yaml"
    path.write_text(
        "name: bad\n"
        "battery: {level: 140}\n"
        "photos:\n"
        "  - {name: a.jpg, path: /etc/a.jpg, dateAdded: yesterday, size: 1, width: 1, height: 1, picture: {seed: 1}}\n"
        "permissions: {photos: maybe}\n"
    )
    with pytest.raises(ProfileError) as caught:
        load_profile(str(path))
    message = caught.value.message
    assert message.startswith(f"{path}:2:") and "device profile" in message and "(and 3 more problems)" in message
    issues = caught.value.details["issues"]
    assert [issue["path"] for issue in issues] == [
        "$.battery.level",
        "$.photos[0].path",
        "$.photos[0].dateAdded",
        "$.permissions.photos",
    ]
    assert all(issue["line"] for issue in issues)


def test_an_unknown_profile_says_what_there_is(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no device profile 'nope'") as caught:
        load_profile("nope")
    assert "demo" in caught.value.next_step


def test_deleting_a_photo_file_takes_it_out_of_the_library_and_frees_its_space() -> None:
    data = PhoneData(load_profile(None), VirtualClock())
    from visor.device.data import RecordKind, ValueKind

    photo = data.records(RecordKind.PHOTOS)[0]
    free = data.value(ValueKind.STORAGE)["freeBytes"]
    del data.stored[photo["path"]]
    assert photo["path"] not in [p["path"] for p in data.records(RecordKind.PHOTOS)]
    assert data.value(ValueKind.STORAGE)["freeBytes"] == free + photo["size"]


@pytest.mark.parametrize("text", ["hello\n", "[1, 2]\n", "42\n"])
def test_a_profile_that_is_no_mapping_is_refused(tmp_path: Path, text: str) -> None:
    """It was read as an empty profile."""
    from visor.errors import InputError
    from visor.runtimes.sim.profile_load import load_profile

    path = tmp_path / "p.profile.yaml"
    path.write_text(text)
    with pytest.raises(InputError, match="mapping"):
        load_profile(str(path))
