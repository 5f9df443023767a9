"""The one writing path: destinations checked first, atomic files, folders whole or not at all."""

import os
import stat

import pytest

import artefacts
from artefacts import DestinationError


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_write_text_is_atomic_and_0644(tmp_path):
    target = tmp_path / "a.v"
    artefacts.write_text(target, "module a; endmodule\n")
    assert target.read_text() == "module a; endmodule\n"
    assert _mode(target) == 0o644
    artefacts.write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert sorted(os.listdir(tmp_path)) == ["a.v"]     # no temporary left behind


@pytest.mark.parametrize("make, expected", [
    (lambda tmp: tmp / "missing" / "x.v", "does not exist"),
    (lambda tmp: tmp, "is a directory"),
    (lambda tmp: (tmp / "file").write_text("") or tmp / "file" / "x.v", "is not a directory"),
])
def test_bad_file_destinations_name_the_users_path(tmp_path, make, expected):
    path = make(tmp_path)
    with pytest.raises(DestinationError) as info:
        artefacts.write_text(path, "x")
    message = str(info.value)
    assert message.startswith(f"{path}: ") and expected in message
    assert "\n" not in message and ".tmp" not in message


def test_unwritable_place_is_found_by_the_probe():
    with pytest.raises(DestinationError, match=r"^/proc/x\.v: cannot write there"):
        artefacts.check_file_destination("/proc/x.v")


def test_interrupted_atomic_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "wave.vcd"
    target.write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with artefacts.atomic_path(target) as temporary:
            temporary.write_text("half of a new wavef")
            raise KeyboardInterrupt
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["wave.vcd"]


def test_new_output_directory_appears_whole(tmp_path):
    destination = tmp_path / "out" / "deeper"
    with artefacts.output_directory(destination) as out:
        out.write_text("k.v", "v")
        out.write_text("k.json", "{}")
        assert not destination.exists()           # nothing visible until the block ends
    assert sorted(os.listdir(destination)) == ["k.json", "k.v"]
    assert _mode(destination / "k.v") == 0o644
    assert sorted(os.listdir(tmp_path / "out")) == ["deeper"]


def test_interrupted_output_directory_leaves_nothing(tmp_path):
    destination = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        with artefacts.output_directory(destination) as out:
            out.write_text("k.v", "v")
            raise KeyboardInterrupt
    assert os.listdir(tmp_path) == []


def test_existing_output_directory_is_updated_in_write_order(tmp_path):
    destination = tmp_path / "netlists"
    destination.mkdir()
    (destination / "keep.v").write_text("kept")
    (destination / "stale.v").write_text("stale")
    (destination / "catalog.json").write_text("old")
    with artefacts.output_directory(destination) as out:
        out.write_text("new.v", "new")
        out.remove("stale.v")
        out.write_text("catalog.json", "new")
        assert out.written == ["new.v", "catalog.json"]
    assert sorted(os.listdir(destination)) == ["catalog.json", "keep.v", "new.v"]
    assert (destination / "catalog.json").read_text() == "new"
    assert sorted(os.listdir(tmp_path)) == ["netlists"]


def test_directory_destination_that_is_a_file(tmp_path):
    path = tmp_path / "file"
    path.write_text("")
    with pytest.raises(DestinationError, match="exists and is not a directory"):
        artefacts.output_directory(path).__enter__()
