"""Tuning constants of the MuJoCo kitchen, grouped by topic, each with its unit and the reason
it has its value. Plain numbers only: no simulator import, so the pure layout modules and their
tests use them without MuJoCo.

Where a reason says "set by hand", the value was chosen once and never tuned against the
benchmark; changing it is safe as long as the layout and world tests stay green. Values that
were tuned say what failed at the value before. Pure geometry of a part's shape (a handle bar's
size, a panel's inset) stays beside the builder that draws it.
"""

from __future__ import annotations

# --- rooms and the robot's stances (m) -----------------------------------------------------------
ROOM_DEPTH = 4.0  # x extent of every room: furniture against the +x wall, a 1.5 m corridor and
# room for the base (0.5 m long) to turn in front of it; set by hand
CORRIDOR_X = 1.5  # x of the line the base drives along between rooms, well clear of the
# furniture fronts (x >= ~3 m) and the open doors and drawers in front of them; set by hand
DOOR_HALF_WIDTH = 0.9  # doorway half width around CORRIDOR_X: wide enough for the base with
# both arms out; set by hand
STANDOFF = 0.62  # base centre to furniture front when manipulating, where the arms reach
# the tops and the front rows of levels (the skills move the base from there); set by hand
WALL_HEIGHT = 2.2  # room walls: taller than the robot's head camera (1.58 m + lift)
WALL_THICKNESS = 0.1  # room walls and dividers; set by hand
ROOM_MIN_LENGTH = 3.6  # y extent of a room without furniture: the base turns and walks through
ROOM_END_MARGIN = 1.4  # y a room adds to the width of its furniture row (0.9 m before the first
# piece, 0.5 m after the last): the base stands beside the end pieces
FIRST_FIXTURE_Y = 0.9  # y from a room's start to its first piece of furniture (a doorway's side)
FIXTURE_WALL_GAP = 0.02  # furniture stands this far from the back wall (no contact with it)
FIXTURE_SPACING = 0.5  # y between neighbouring pieces of furniture (an open door leaf lies
# flat in the front plane beside its fixture); set by hand
FLOOR_ITEMS_X = 0.7  # x of the strip where objects standing on a room's floor are packed
FLOOR_ITEMS_HALF_DEPTH = 0.4  # half depth (x) of that strip, between front wall and corridor
SPARE_PARK = (-2.0, 0.0)  # x, y where spare bodies wait outside every room (behind the front wall)
SPARE_SPACING = 0.3  # x between parked spares, so they never touch each other
SPARE_LIFT = 0.05  # m parked spares hover above the floor, weightless: resting on it they
# added 12 contacts that MuJoCo solved at every step for bodies no episode touches

# --- packing children of a region (m) ------------------------------------------------------------
GAP = 0.07  # between packed units (rows and neighbours in a row): room for the hand's width
ROW_FRONT_MARGIN = 0.01  # first row behind the front edge of a region without walls
WALL_FINGER_MARGIN = 0.025  # objects in walled regions keep this far from the walls: a finger
# pressed against a grocery bag's wall could not close on the cheese beside it
COLUMN_GAP = 0.035  # blocker to hidden object: lifting a tall blocker 1 cm off knocked its target
# over (it was 1 cm)
OCCLUDER_SLOPE = 0.9  # tan of the head camera's view angle below horizontal, with margin: a
# blocker grown by this slope over the column's depth hides its target from the head camera
OCCLUDER_MARGIN = 0.03  # a blocker is this much wider and taller than needed to hide its target
# (set by hand: the camera sees a few mm past edges when the base stands off-centre)

# --- reserved placement slots (m) ----------------------------------------------------------------
SLOT = 0.09  # footprint reserved per capacity unit in a movable vessel: a 62 mm-wide item
# (MAX_GRASP_WIDTH) plus room for the fingers
SLOT_ROW_MAX = 4  # slots per row of an open movable vessel, so it stays within one hand's reach
# from one stance; set by hand
SLOT_SPACING = 0.012  # extra y per slot unit when sizing a movable vessel (walls, rounding)
SLOT_ROW_DEPTH = 0.03  # extra x per row of slots when sizing a movable vessel
SLOT_GAP = 0.045  # free width between the items of neighbouring slots: the open fingers (80 mm
# stroke, 2 x 20 mm pads) fit between two items
SLOT_ITEM = 0.1  # a slot is sized for the scene's items up to this wide; wider ones take a run
# of adjacent slots
SLOT_DEPTH_MAX = 0.12  # a slot is at most this deep (x) before its margin: deep items do not
# push a level's rows out of the hand's reach; set by hand
SLOT_DEPTH_MARGIN = 0.03  # added to the slot depth: room in front of and behind an item
SLOT_DEFAULT_ITEM = 0.07  # slot item size when the scene has no ordinary items
SLOT_FRONT_MARGIN = 0.015  # the first slot row starts this far behind a region's front edge
SIDE_MARGIN = 0.08  # roofed levels: slots keep the elbow this far from the side walls

# --- carcasses: furniture bodies (m) -------------------------------------------------------------
PANEL = 0.02  # carcass panel thickness
PLINTH_HEIGHT = 0.06  # kick plate under every carcass
FIXTURE_MIN_DEPTH = 0.45  # no carcass is shallower (room for a drawer's travel); set by hand
FIXTURE_MIN_WIDTH = 0.3  # no carcass is narrower (two door leaves with handles); set by hand
FIXTURE_CONTENT_MARGIN = 0.12  # a carcass is this much wider than the contents packed in it
FIXTURE_SLOT_MARGIN = 0.04  # ... and than its front row of slots (besides SIDE_MARGIN and panels)
TOP_THICKNESS = 0.04  # counter top slab over every carcass
TOP_EDGE_MARGIN = 0.03  # what stands on a top keeps this far from its edges; set by hand
LEVEL_DEPTH_INSET = 0.04  # the usable floor of a compartment or level is this much shallower at
# each end than the carcass inside ...; set by hand
LEVEL_SHIFT = -0.02  # ... its centre this far toward the front, where the hand comes from ...
LEVEL_SIDE_INSET = 0.01  # ... and it is this much narrower at each side than between the panels
EMPTY_CONTENT_HEIGHT = 0.1  # content height assumed for an empty drawer, level or compartment
COMPARTMENT_MIN_Z = 0.42  # a box's compartment floor is at least this high, within the arms'
# reach from the front with the torso down; set by hand
HAND_CLEARANCE = 0.42  # free height above a compartment's contents for the hand and wrist
COMPARTMENT_MIN_HEIGHT = 0.32  # a compartment is at least this tall even when empty
BOTTOM_COMPARTMENT = 0.3  # a box with levels and no direct contents keeps this bottom compartment
LEVEL_CLEARANCE = 0.4  # free height above contents inside shelf/bin levels, entered from the front
LEVEL_ITEM = 0.24  # a level is at least tall enough for a typical item put there later
LEVEL_LIP = 0.06  # front lip of a bin level (a fridge door bin): what stands in it reads INSIDE
DOOR_OPEN = 2.1  # rad: hinged doors open to 120 deg, like real fridge and cupboard doors
# (110-130 deg). They used to swing flat (178 deg) into the front plane so an open leaf stood
# out < 5 cm (at 166 deg the tips stood 11 cm out where the base stands beside the fridge to
# place on its shelves); but a hand cannot get behind a leaf folded flat to close it, and pulled
# by the hand a leaf was left at 110 deg anyway. At 120 deg the two half-width leaves stand out
# ~30 cm at the carcass's outer edges: the compartment between them stays as wide as the carcass
DOOR_OVERTRAVEL = 0.1  # rad the hinge range extends past DOOR_OPEN (the stop): the servo's
# target is never on the joint limit
DOOR_DAMPING = 1.0  # N m s/rad: a released leaf stops within a few degrees; set by hand
DOOR_MASS = 1.0  # kg per leaf; set by hand
DRAWER_TRAVEL_MAX = 0.36  # m a drawer slides out: its front rows are exposed and the base at
# STANDOFF still clears the open drawer
DRAWER_DAMPING = 15.0  # N s/m: a released drawer stops rather than bouncing off its limit
DRAWER_MASS = 1.5  # kg; set by hand
DRAWER_MIN_HEIGHT = 0.12  # a drawer is at least this tall
DRAWER_CONTENT_HEADROOM = 0.05  # ... and this much taller than its contents
BIN_RIM = 0.07  # wall height of open bins standing on furniture (a fruit basket): a top-down
# hand reaches their contents without the wrist hitting the rim

# --- movable vessels and items -------------------------------------------------------------------
WALL = 0.01  # m, vessel wall thickness
VESSEL_SIDE_PLAY = 0.02  # m a vessel or bin is wider than its packed contents and walls; set by hand
BIN_DEPTH_PLAY = 0.04  # m an open bin is deeper than its rows of slots and walls; set by hand
OPEN_VESSEL_RIM = 0.07  # m, wall height of open (lidless) movable containers, for the same reason
# as BIN_RIM
TRAY_RIM = 0.03  # m, rim of a carrier (a tray: SURFACE, not CONTAINER)
LID_HEADROOM = 0.03  # m, a lidded vessel is this much taller than its tallest possible content
LOOSE_ITEM_MAX = 0.14  # m, taller items are not expected to go into lidded vessels (a yogurt cup
# in a lunch box held the lid 60 % open before lids were sized for the tallest loose item)
LOOSE_ITEM_WIDTH_MAX = 0.16  # m, a lidded vessel's row is sized for items up to this wide
LID_OPEN = 1.9  # rad a lid (or book cover) opens: past vertical (1.57), so it stays open
LID_RANGE = 2.0  # rad, the lid's hinge limit, a little past LID_OPEN
LID_DAMPING = 0.05  # N m s/rad; set by hand (a light lid)
LID_MASS = 0.05  # kg; set by hand
LID_TAB_HALF = (0.0125, 0.015, 0.005)  # m, half extents of the tab at a lid's front edge: 2.5 cm
# out in front, 3 cm wide, so the fingers pinch it across its width (physics-mode open/close)
VESSEL_MASS = 0.3  # kg; set by hand
ITEM_DENSITY = 400.0  # kg/m^3 of a solid item's bounding box; set by hand (light packaging)
ITEM_MASS_RANGE = (0.05, 0.6)  # kg: light enough for the 20 N finger grip, heavy enough to settle
ITEM_FRICTION = 1.2  # sliding friction of movables: the 20 N finger pinch holds them (1.0
# already held a 500 g box in SAPIEN, PLATFORM.md); set by hand
FLOOR_FRICTION = 1.0  # sliding friction of floors that items rest on (vessel, bin, drawer)
DROP_CLEARANCE = 0.002  # m an item is built above its support, so it settles without penetration
SLENDER = 3.0  # height/diameter above which a cylinder is built as a box (it rocked and toppled)
TALL = 1.5  # height/width above which an item gets a bottom-weighted centre of mass: cereal boxes
# and paper rolls toppled when a neighbour was grasped
TALL_COM_DROP = 0.6  # ... lowered by this fraction of its half height (to 20 % of its height)
BUTTON_DEPTH = 0.012  # m, travel of a button; pressed when more than half of it is used
BUTTON_DAMPING = 30.0  # N s/m; set by hand
BUTTON_FRICTIONLOSS = 8.0  # N of dry friction: a pushed button stays down (a latch)
SPARE_HALF = 0.03  # m, half size of a parked spare box (resized at realization)
SPARE_MASS = 0.1  # kg

# --- simulation ----------------------------------------------------------------------------------
TIMESTEP = 0.002  # s: MuJoCo's default; the Panda position servos (kp up to 3000) run stably
# at it with the implicitfast integrator
IMPRATIO = 10.0  # frictional-to-normal impedance ratio: with the elliptic cone it reduces slip
# of pinched objects (MuJoCo's documentation recommends raising it for grasping)
TORSIONAL_FRICTION = 0.01  # m, of geoms with condim 4 (items, floors of vessels): resists a held
# item spinning about the finger axis; set by hand
ROLLING_FRICTION = 0.001  # m, of spheres (condim 6; other shapes do not roll): a nudged orange stops
# within centimetres instead of rolling off a shelf; set by hand
ARTICULATION_ARMATURE = 0.01  # kg m^2 (hinges) or kg (slides) on articulation joints: keeps
# light lids and buttons stable at TIMESTEP; set by hand
INERTIA_FLOOR = 2e-5  # kg m^2: tiny items' inertia is floored so they stay stable at TIMESTEP

# --- geometry queries over the live world (m) ----------------------------------------------------
HAND_SIDE = 0.03  # lateral room for the fingers beside a held object
SPOT_SPACING = 0.08  # alternative free spots differ by at least this much along x or y: a spot
# the arm cannot reach is rarely helped by one 2 cm away
FINGER_REACH = 0.07  # open fingers reach this far past a held object along their closing axis
SPOT_GRID = 0.02  # step of the free-spot search grid
SPOT_MARGIN = 0.012  # default free gap kept to every neighbour of a free spot (open fingers)

# --- catalog -------------------------------------------------------------------------------------
MAX_GRASP_WIDTH = 0.062  # m: the Panda gripper opens 80 mm; graspable solids are kept at most this
# wide across their narrowest horizontal side so physics grasping is possible at all

# --- occlusion measured from the head camera (occlusion.py) --------------------------------------
VIEW_LIFT = 0.0  # m, torso lift of the viewpoint: the robot's neutral posture
# COVER_FRACTION, FACE_GRID, FACE_INSET, SURFACE_OFFSET: robograph_backends.coverage (shared with SAPIEN)

# --- reading the world (sense.py; OPEN_FRACTION and TOL are shared: backends/reading.py) ---------
PINCH_REACH = 0.15  # m: a body touched by one finger only is held when its centre is this close
# to the grip point (pinched between finger and palm); set by hand

# --- realizing a new occlusion (realize.py) ------------------------------------------------------
GROW_STEP = 0.02  # m a single-geom blocker that must hide its target grows taller per try
GROW_STEPS = 20  # ... at most this many tries (40 cm); set by hand
GROW_MARGIN = 0.015  # m the grown blocker is at least this much wider than the target each side
# (the head camera sees past the edges when the base stands a little off-centre)
GROW_COVER = 0.8  # coverage the blocker grows to, well past COVER_FRACTION: settling moves it;
# an apple grown to 87 % in a pantry cabinet read 74 % once it dropped the 6 mm it then started
# above its floor (PLACE_CLEARANCE was added twice); set by hand
BLOCKER_GAP = 0.012  # m a realized blocker stands in front of its target's box; set by hand
PLACE_CLEARANCE = 0.003  # m a teleported body starts above its support's floor, so it settles
# onto it without penetration
