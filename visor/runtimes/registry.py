"""Open the device a run asks for. The runtime is always chosen explicitly; nothing falls back to `sim`.

This is the one place (with the command line's choices and the scenario format) that knows runtimes by name:
what sets them apart is told by each device's `DeviceInfo.capabilities`. The module is light to import (the
command line takes its runtime names from it at start-up); each runtime is imported when opened.
"""

# An import marked `# lazy: start-up` is a runtime's, made when it is opened: the command line reads the registry
# as it starts, and `visor --version` loads no runtime (tests/cli/test_basics.py holds it).
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from visor.errors import InputError, TargetError
from visor.runtimes.config import (
    DEFAULT_RUNTIME,
    RUNTIMES,
    AppiumConfig,
    SimConfig,
    VisualAgentConfig,
)

if TYPE_CHECKING:
    from visor.clock import Clock
    from visor.device.protocol import Device
    from visor.runtimes.sim.model import AppModel


@dataclass(frozen=True, slots=True)
class DeviceRequest:
    """What a run needs from its device: the command's configuration resolved against the scenario's."""

    runtime: str
    app: str | None
    scenario_dir: str
    seed: int
    #: The clock a runtime with virtual time (`capabilities.virtual_time`) keeps; the others use the wall's.
    clock: Clock
    #: The app's package or bundle id (Appium's app; --app-id, else --app).
    app_id: str | None = None
    #: The platform the command gives (--platform): on the simulated phone, its flavour.
    platform: str | None = None
    #: Appium's part, its capabilities over the scenario's.
    appium: AppiumConfig = field(default_factory=AppiumConfig)
    visualagent: VisualAgentConfig = field(default_factory=VisualAgentConfig)
    sim: SimConfig = field(default_factory=SimConfig)
    #: The wall clock, for a runtime that waits on real files (`visualagent`).
    wall: Clock | None = None
    #: The platform the scenario declares (`meta.platform`): the simulated phone's flavour unless --platform says.
    scenario_platform: str | None = None
    #: The runtime the scenario declares (`config.runtime`), when --runtime chose another: a scenario written for
    #: `local` runs on the simulated phone on the app `local` means (upstream's counter app).
    scenario_runtime: str | None = None


def choose_runtime(option: str | None, config: str | None) -> str:
    """Apply the precedence: --runtime, then config.runtime, then appium (as upstream)."""
    runtime = option or config or DEFAULT_RUNTIME
    if runtime not in RUNTIMES:
        raise InputError(
            f"unknown runtime {runtime!r}",
            likely_cause="--runtime or config.runtime names a runtime visor does not have.",
            next_step=f"Use one of: {', '.join(RUNTIMES)}.",
        )
    return runtime


def open_device(request: DeviceRequest) -> Device:
    """Start the device for a run.

    Raises:
        InputError: the app model cannot be found or is invalid.
        TargetError: the runtime cannot be used.
    """
    if request.runtime in ("sim", "local"):
        return open_sim(request)
    if request.runtime == "visualagent":
        return open_visualagent(request)
    return open_appium(request)


def in_process(runtime: str) -> bool:
    """Say whether the runtime's device runs inside visor's process (the simulated phone), on this machine's CPU."""
    return runtime in ("sim", "local")


def share_work(folder: str | None) -> None:
    """Let the processes forked from now on share, through `folder`, what is costly to make (None: no more).

    The simulated phone's pictures: see `visor.runtimes.sim.render.share_pictures`.
    """
    # lazy: a runtime is imported when it is opened; the registry is read at start-up
    from visor.runtimes.sim.render import share_pictures

    share_pictures(folder)


def preload(
    runtime: str, app: str | None, scenario_dir: str, profile: str | None = None, declared: str | None = None
) -> None:
    """Do once what opening any device of this runtime does first: import its modules, read its app models.

    `visor run --workers` calls it before forking its worker processes, so each starts warm instead of paying
    for it once per process. Nothing is opened or started.

    Raises:
        VisorError: the app model or the profile cannot be loaded (opening the device would say the same).
    """
    if in_process(runtime):
        # Imported for what opening it imports; the models and the profile stay cached while unchanged, and the
        # fonts are what a first screenshot (a failure's, a screenshot step's) spends most of its time on.
        import visor.runtimes.sim.device
        from visor.runtimes.sim.profile_load import load_profile  # lazy: start-up
        from visor.runtimes.sim.render import load_fonts  # lazy: start-up

        _sim_apps(runtime, app, scenario_dir, declared)
        load_profile(profile)
        load_fonts()
    elif runtime == "visualagent":
        import visor.runtimes.visualagent.device  # noqa: F401
    else:
        # lazy: a runtime is imported when it is opened; the registry is read at start-up
        from visor.runtimes.appium.device import appium_client

        appium_client()


def open_sim(request: DeviceRequest) -> Device:
    """Start the simulated phone; `local` (upstream's offline runtime) is it, on upstream's counter app.

    Its flavour (android or ios) is --platform's, else the scenario's `meta.platform`, else the app model's first.
    """
    # lazy: a runtime is imported when it is opened; the registry is read at start-up
    from visor.runtimes.sim.device import SimDevice
    from visor.runtimes.sim.load import choose_platform  # lazy: start-up
    from visor.runtimes.sim.profile_load import load_profile  # lazy: start-up

    model, installed = _sim_apps(request.runtime, request.app, request.scenario_dir, request.scenario_runtime)
    name = "local" if request.runtime == "local" else "visor-sim"
    profile = load_profile(request.sim.profile)
    platform = choose_platform(model, request.platform, request.scenario_platform)
    return SimDevice(
        model,
        clock=request.clock,
        seed=request.seed,
        installed=installed,
        name=name,
        profile=profile,
        platform=platform,
    )


def _sim_apps(
    runtime: str, app: str | None, scenario_dir: str, declared: str | None = None
) -> tuple[AppModel, list[AppModel]]:
    """Load the simulated phone's app under test and the other apps it has installed (cached while unchanged).

    With no app named, `local`'s is its counter app, also for a scenario written for `local` run with --runtime sim.

    Raises:
        InputError: an app model is missing or invalid.
    """
    # lazy: the registry is read at start-up
    from importlib import resources

    # lazy: a runtime is imported when it is opened; the registry is read at start-up
    from visor.runtimes.sim.load import DEFAULT_APP, builtin_apps, load_app, resolve_app

    if app is None and "local" in (runtime, declared):  # upstream's offline runtime: its counter app
        model = load_app(str(resources.files("visor.runtimes.sim").joinpath("local", "counter.app.yaml")))
    else:
        model = load_app(resolve_app(app or DEFAULT_APP, scenario_dir))
    others = [load_app(resolve_app(name, scenario_dir)) for name in builtin_apps()]
    return model, [other for other in others if other.app.id != model.app.id]


def open_visualagent(request: DeviceRequest) -> Device:
    """Reach the agent serving a folder (local, or a phone's through adb) and take a first screenshot."""
    # lazy: a runtime is imported when it is opened; the registry is read at start-up
    from visor.runtimes.visualagent.device import VisualAgentDevice
    from visor.runtimes.visualagent.mailbox import DEVICE_ROOT, LocalMailbox, Mailbox, PhoneMailbox  # lazy: start-up

    ask = request.visualagent
    mailbox: Mailbox
    if ask.adb_serial is not None:
        # lazy: a runtime is imported when it is opened; the registry is read at start-up
        from visor.runtimes.adb import Adb

        mailbox = PhoneMailbox(Adb(ask.adb_serial), ask.folder or DEVICE_ROOT)
    elif ask.folder is not None:
        mailbox = LocalMailbox(ask.folder)
    else:
        raise InputError(
            "the visualagent runtime needs the folder an agent serves",
            likely_cause="Neither --visualagent-dir nor --adb-serial was given.",
            next_step="Pass --visualagent-dir DIR (a local folder, e.g. one `visor visualagent serve DIR` serves) "
            "or --adb-serial SERIAL (the phone whose /sdcard/VisualAgent/ the VisualAgent app serves).",
        )
    assert request.wall is not None, "the visualagent runtime waits on real files: it needs the wall clock"
    return VisualAgentDevice(mailbox, request.wall, platform=request.platform or "android")


def platform_untold(runtime: str | None, platform: str | None, capabilities: Mapping[str, object]) -> bool:
    """Say whether a device on `runtime` needs a platform that neither `platform` nor the capabilities tell.

    Only Appium's do; it still finds a device's platform where this host lists the device (adb, xcrun), which
    the caller asks (`visor.runtimes.appium.host_programs`). Asked before anything closes the device in use.
    """
    if runtime != "appium" or platform:
        return False
    # lazy: a runtime is imported when it is opened; the registry is read at start-up
    from visor.runtimes.appium.capabilities import platform_of

    return platform_of(capabilities) is None


def open_appium(request: DeviceRequest) -> Device:
    """Start an Appium session on the device the request (or the host's only device) names."""
    # lazy: a runtime is imported when it is opened; the registry is read at start-up
    from visor.runtimes.appium.capabilities import settings_from
    from visor.runtimes.appium.device import AppiumDevice, appium_client  # lazy: start-up
    from visor.runtimes.appium.host_programs import choose_device, installed_drivers, list_devices  # lazy: start-up

    appium_client()  # first: without the client library nothing else matters
    ask = request.appium
    capabilities = _local_app_path(dict(ask.capabilities), request.scenario_dir)
    settings = settings_from(
        server_url=ask.server_url,
        device=ask.device,
        app_id=request.app_id or request.app,
        attach=ask.attach,
        # A web scenario (meta.platform: web) says where it runs: no phone of this host tells it otherwise.
        platform=request.platform or ("web" if request.scenario_platform == "web" else None),
        capabilities=capabilities,
    )
    # A udid in the capabilities names the device as --device does.
    named = settings.device or _udid(capabilities)
    if settings.platform == "web":
        return AppiumDevice(settings, installed_drivers=installed_drivers)  # the browser is the device: no phone
    if settings.platform is None or (named is None and not _remote(settings.public_url)):
        chosen = choose_device(named, list_devices())
        if chosen is not None and not chosen.platform and settings.platform is None:
            raise TargetError(
                f"device {named!r} is not one this host lists (adb, xcrun), so its platform is unknown",
                likely_cause="The device is behind a remote server or a device farm, or not connected here.",
                next_step="For a remote device pass --platform android or --platform ios (or platformName in the "
                "capabilities); `visor devices` lists the devices connected here.",
            )
        if chosen is None and settings.platform is None:
            raise TargetError(
                "no device to run on: no Android device (adb) or booted iOS simulator was found",
                likely_cause="No device is connected or booted, and none was named.",
                next_step="Connect a device (adb devices) or boot a simulator, or pass --platform and --device "
                "(or config.capabilities) for a remote server; `visor devices` lists what visor sees. To run on "
                "the simulated device instead, pass --runtime sim.",
            )
        if chosen is not None:
            settings = replace(settings, device=chosen.id, platform=settings.platform or chosen.platform or None)
    return AppiumDevice(settings, installed_drivers=installed_drivers)


def _udid(capabilities: dict[str, object]) -> str | None:
    """Return the device the capabilities name (`appium:udid`), if any."""
    value = capabilities.get("appium:udid", capabilities.get("udid"))
    return str(value) if value not in (None, "") else None


def _local_app_path(capabilities: dict[str, object], folder: str) -> dict[str, object]:
    """Resolve a relative `appium:app` against the scenario's folder, so scenarios can ship with their apps."""
    for key in ("appium:app", "app"):
        value = capabilities.get(key)
        if isinstance(value, str) and "://" not in value and not os.path.isabs(value):
            candidate = os.path.join(folder, value)
            if os.path.exists(candidate):
                capabilities[key] = os.path.abspath(candidate)
    return capabilities


def _remote(url: str) -> bool:
    # lazy: the registry is read at start-up
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").lower()
    return host not in ("127.0.0.1", "localhost", "::1")


def scenario_folder(source: str) -> str:
    """Return the folder relative paths in a scenario are resolved against."""
    return os.path.dirname(os.path.abspath(source)) if source not in ("-", "<stdin>") else os.getcwd()
