"""The app map: screens and the taps between them, learnt from runs, discover and crawls; routes over it.

- `annotate`: Applying an annotation to the app map: a screen's name, what can be done on it and how safe, what
  proves it
- `annotation_file`: An annotation document for the app map (`visor discover --annotate-current FILE|-`)
- `crawl`: `visor discover --crawl`: learn an app's screens and the taps between them, breadth first, safely
- `discover`: `visor discover`: look at the current screen and record it in the app map (its screen, its variant)
- `document`: The app map's document as typed values: its screens, variants, edges and their parts, key for key
  as the file holds them
- `drift`: `visor benchmark --compare-map`: how the app map changed from run to run (`data.map_drift`), and
  `data.variants`
- `hook`: The app map plugged into runs (`visor.run.hooks`): detours before taps, learning from taps, drift in
  benchmarks
- `learning`: The app map learns from the taps of runs and direct actions, on screens seen settled, never on a
  moving one
- `memory`: The app map's compact agent memory (upstream's `visor.agent-memory.v1`): what an agent needs, nothing
  private
- `model`: The app map's file: where it lives, reading it, writing it atomically under a lock, and screens in it
- `picture`: Pictures of an app map: screens as thumbnails, the taps between them as labelled arrows (SVG or PNG)
- `plan_file`: A route plan (`visor route PLAN|-`): ordered ways to a goal, each step with what must be on screen
  after it
- `route_plans`: `visor route PLAN|-`: follow a route plan path by path, checking every step's destination;
  checkpoint each step
- `routes`: `visor route --to SCREEN`: the shortest safe way through the app map from the current screen, followed
  and checked
- `routing`: Mapped execution in a run: a step whose target is on another screen the app map knows is routed there
  first
- `show`: `visor map show`: draw an app map (SVG or PNG), from its file or from the app it maps
- `tools`: The app map for agents over MCP: `map_read`, `route_plan`, `route_follow`
"""
