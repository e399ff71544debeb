"""Applying an annotation to the app map: a screen's name, what can be done on it and how safe, what proves it.

As upstream applies one (docs/app-map.md): the screen's semantics (redacted) go on the variant observed, and onto
its screen when no other variant of that screen says otherwise; each action is kept once per identity (its
command and arguments, a typed value left out): a new one is inserted, the same semantics change nothing, other
semantics replace the old (`updated`), and an action on a control whose suggested action (upstream's
source-derived one, `agent_memory.suggested_label`) had no annotation yet replaces those defaults (`merged`).
`screen_applied` says whether the screen's semantics were applied. visor also applies what upstream only
stores: an action's `safety` is the safety of the control it taps, over visor's reading of its labels (a crawl
never taps one marked risky, and taps one marked safe), and `required_targets` join the screen's destination
contract, on every edge leading to it.
"""

from __future__ import annotations

import json
from dataclasses import replace

from visor.ext.appmap.annotation_file import ActionNote, MapAnnotation, ScreenNote
from visor.ext.appmap.document import Action, Variant, present, to_json
from visor.ext.appmap.memory import suggested_label
from visor.ext.appmap.model import AppMap, apply_marks, contract_targets
from visor.ui.screens import redact

_SEMANTICS = ("label", "intent", "safety", "description", "notes")


def annotate(app_map: AppMap, variant: Variant, note: MapAnnotation) -> dict[str, int]:
    """Apply an annotation to the variant observed; return `data.annotation`.

    That is upstream's `{screen_applied, actions_inserted, actions_updated, actions_merged}`, with visor's
    `actions_unchanged` (the same semantics again). The annotation's `inputs` and `entries` are a crawl's, not
    the screen's: they are not applied here.
    """
    app_map.changed = True
    if note.screen is not None:
        variant = _name(app_map, variant, note.screen)
    counts = {"screen_applied": note.screen is not None, "actions_inserted": 0, "actions_updated": 0,
              "actions_merged": 0, "actions_unchanged": 0}  # fmt: skip
    # The controls whose actions are still the screen's defaults: suggested, and no annotation names them yet.
    annotated = {action.target for action in variant.actions}
    suggested = {target for element in variant.elements if suggested_label(element) is not None
                 for target in (element.selector, *element.targets) if target not in annotated}  # fmt: skip
    if note.actions:
        actions = list(variant.actions)
        for action in note.actions:
            counts[_keep(actions, action, suggested)] += 1
        variant = replace(variant, actions=tuple(actions), order=present(variant, "actions"))
    if note.required_targets:
        variant = replace(variant, required_targets=tuple(dict.fromkeys(note.required_targets)),
                          order=present(variant, "required_targets"))  # fmt: skip
        contract = tuple(contract_targets(variant))
        for edge in app_map.document.edges:
            if edge.to_variant_id == variant.id:
                proof = replace(edge.destination_contract, required_targets=contract)
                app_map.put_edge(replace(edge, destination_contract=proof))
    app_map.put_variant(apply_marks(variant))
    return counts


def _name(app_map: AppMap, variant: Variant, screen_note: ScreenNote) -> Variant:
    """Return the variant named as the note says; name its screen too, unless another variant of it says otherwise.

    A variant's name is no field the schema reads (it is kept with the variant's other keys, `extra`).
    """
    notes = [redact(item) for item in screen_note.notes] if screen_note.notes is not None else None
    given = (("label", redact(screen_note.label)), ("purpose", redact(screen_note.purpose)),
             ("description", redact(screen_note.description) if screen_note.description is not None else None),
             ("notes", notes))  # fmt: skip
    fields = {key: value for key, value in given if value is not None}
    named = replace(variant, extra={**variant.extra, **fields}, order=present(variant, *fields))
    screen = next(item for item in app_map.document.screens if item.id == variant.screen_id)
    siblings = [other for other in app_map.document.variants
                if other.screen_id == screen.id and other.id != variant.id and "label" in other.extra]  # fmt: skip
    pair = (fields.get("label"), fields.get("purpose"))
    if all((other.extra["label"], other.extra.get("purpose")) == pair for other in siblings):
        label, purpose = redact(screen_note.label), redact(screen_note.purpose)
        app_map.put_screen(replace(screen, label=label, purpose=purpose, order=present(screen, "label", "purpose")))
    return named


def _keep(actions: list[Action], action: ActionNote, suggested: set[str]) -> str:
    """Insert or update one action (in `actions`) by its identity; return which count it adds to.

    A new tap on a control in `suggested` (its screen suggested an action for it) is `merged`: its semantics
    replace the defaults the control suggested.
    """
    args = {key: value for key, value in action.args.items() if key != "value"}  # a typed value is never kept
    identity = json.dumps({"command": action.command, "args": args}, sort_keys=True)
    label, intent = redact(action.label), redact(action.intent)
    description = redact(action.description) if action.description is not None else None
    notes = tuple(redact(item) for item in action.notes) if action.notes is not None else None
    semantics: dict[str, object] = {"label": label, "intent": intent, "safety": action.safety}
    if description is not None:
        semantics["description"] = description
    if notes is not None:
        semantics["notes"] = list(notes)
    index = next((number for number, item in enumerate(actions) if item.identity == identity), None)
    if index is None:
        target = args.get("target")
        actions.append(Action(identity=identity, command=action.command, args=args,
                              target=target if isinstance(target, str) else None, label=label, intent=intent,
                              safety=action.safety, description=description, notes=notes or (),
                              order=("identity", "command", "args", "target", *semantics)))  # fmt: skip
        merged = action.command == "tap" and isinstance(target, str) and target in suggested
        return "actions_merged" if merged else "actions_inserted"
    known = actions[index]
    shown = to_json(known)
    if all(shown.get(key) == value for key, value in semantics.items()):
        return "actions_unchanged"
    kept = tuple(key for key in known.order if key not in _SEMANTICS)
    actions[index] = replace(known, label=label, intent=intent, safety=action.safety, description=description,
                             notes=notes or (), order=kept + tuple(semantics))  # fmt: skip
    return "actions_updated"
