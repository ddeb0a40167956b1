"""Trajectory results in columns (gjkd.proto PairColumns, QueryOptions.pair_columns).

The daemon sends every reported pair of a trajectory as fixed-width packed arrays. Their bytes
are read as numpy arrays without a Python object per value (TrajectoryArrays), and the dicts of
Client.query_trajectory are built from the same columns (pair_columns_states). numpy is needed
only for TrajectoryArrays; the dicts do without it."""

from ._proto import pb

# PairColumns and WaypointColumns field numbers (gjkd.proto) and the numpy type of each.
_PAIR_FIELDS = {"waypoint": (1, "<u4"), "pair_index": (2, "<u4"), "distance": (3, "<f8"),
                "geometry": (4, "<f8"), "status": (5, "<i4"), "iterations": (6, "<i4"),
                "epa_iterations": (7, "<i4"), "part_pair_count": (8, "<u4"),
                "gradient_a_count": (9, "<u4"), "gradient_a": (10, "<f8"),
                "gradient_b_count": (11, "<u4"), "gradient_b": (12, "<f8"),
                "subgradient": (13, "u1")}
_WAYPOINT_DOUBLES = {"min_distance": 2}
# SegmentColumns fields (gjkd.proto), the numpy type of each; TrajectoryArrays names them
# "segment_" + the field name.
_SEGMENT_FIELDS = {"verdict": (1, "<i4"), "t": (2, "<f8"), "clearance_lower_bound": (3, "<f8"),
                   "pair_index": (4, "<i4"), "distance": (5, "<f8"), "geometry": (6, "<f8"),
                   "status": (7, "<i4"), "iterations": (8, "<i4"), "epa_iterations": (9, "<i4"),
                   "part_pair_count": (10, "<u4"), "pairs_checked": (11, "<u4"),
                   "pairs_undecided": (12, "<u4"), "evaluations": (13, "<u8"),
                   "evaluated": (14, "u1")}
_VERDICT = {1: "clear", 2: "contact", 3: "undecided"}

FLAG_EVALUATED = pb.WAYPOINT_FLAG_EVALUATED
FLAG_COLLIDING = pb.WAYPOINT_FLAG_COLLIDING
FLAG_TRUNCATED = pb.WAYPOINT_FLAG_TRUNCATED
FLAG_HAS_MIN_DISTANCE = pb.WAYPOINT_FLAG_HAS_MIN_DISTANCE
FLAG_HAS_CLOSEST = pb.WAYPOINT_FLAG_HAS_CLOSEST


class InconsistentReply(ValueError):
    """The columns of a reply do not fit together (the client raises GjkdError 102)."""


def _varint(data, i):
    b = data[i]
    if b < 0x80:  # tags and small lengths: one byte
        return b, i + 1
    value = shift = 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7


def length_delimited_fields(data, wanted=None):
    """{field number: bytes-like} of the length-delimited fields of a serialized message (a
    packed repeated field is one; a field given in several chunks is joined, as protobuf
    concatenates them), only those in `wanted` when it is given. The protobuf runtime
    serializes packed fields in one chunk each, so the bytes of a message it serialized are
    views, not copies."""
    view = memoryview(data)
    out = {}
    i, n = 0, len(data)
    while i < n:
        key, i = _varint(data, i)
        kind = key & 7
        if kind == 2:
            length, i = _varint(data, i)
            chunk = view[i:i + length]
            i += length
            field = key >> 3
            if wanted is not None and field not in wanted:
                continue
            out[field] = bytes(out[field]) + bytes(chunk) if field in out else chunk
        elif kind == 0:
            _, i = _varint(data, i)
        elif kind == 1:
            i += 8
        elif kind == 5:
            i += 4
        else:
            raise InconsistentReply("wire type %d in a columns message" % kind)
    if i != n:
        raise InconsistentReply("a truncated columns message")
    return out


def _body(b):
    if b.obstacle:
        return {"obstacle": b.obstacle}
    return {"robot": b.robot, "link": b.link}


def table_sides(table):
    """The pair table (TrajectoryResult.pair_table) as (a, b, padding) per entry: the pair
    dicts' "a" and "b" (bodies, parts, ids, part indices) and padding."""
    out = []
    for e in table:
        a = _body(e.body_a)
        a.update(part=e.part_a, id=e.body_a_id, part_index=e.part_a_index)
        b = _body(e.body_b)
        b.update(part=e.part_b, id=e.body_b_id, part_index=e.part_b_index)
        out.append((a, b, e.padding))
    return out


def check_lengths(lengths, m):
    """Checks the lengths ({name: length}) of the per-pair arrays and gradient values of m
    pairs."""
    for name in ("pair_index", "distance", "status", "iterations", "epa_iterations",
                 "part_pair_count"):
        if lengths[name] != m:
            raise InconsistentReply("%s: %d entries for %d pairs" % (name, lengths[name], m))
    if lengths["geometry"] != 15 * m:
        raise InconsistentReply("geometry: %d values for %d pairs" % (lengths["geometry"], m))
    if lengths["gradient_a_count"] or lengths["gradient_b_count"]:
        if not lengths["gradient_a_count"] == lengths["gradient_b_count"] == \
                lengths["subgradient"] == m:
            raise InconsistentReply("gradient counts")
    elif lengths["gradient_a"] or lengths["gradient_b"] or lengths["subgradient"]:
        raise InconsistentReply("gradient values without counts")


def waypoint_starts(flags, waypoint, n_table, pair_index):
    """The first pair of each waypoint (len(flags) + 1 offsets), checking that the waypoint
    indices are in order and agree with the flags, and the pair indices are in the table."""
    n, m = len(flags), len(waypoint)
    start, k = [0] * (n + 1), 0
    for i in range(n):
        start[i] = k
        while k < m and waypoint[k] == i:
            k += 1
        if bool(flags[i] & FLAG_HAS_CLOSEST) != (k > start[i]):
            raise InconsistentReply("waypoint %d: flags and pairs disagree" % i)
    start[n] = k
    if k != m:
        raise InconsistentReply("waypoint indices out of order or out of range")
    if m and max(pair_index) >= n_table:
        raise InconsistentReply("a pair index beyond the pair table")
    return start


def pair_columns_states(w, c, table, all_pairs):
    """The waypoints of a pair-columns reply (w: WaypointColumns, c: PairColumns messages) as
    the dicts of Client.query_trajectory, from plain lists (no numpy)."""
    lengths = {name: len(getattr(c, name)) for name in _PAIR_FIELDS}
    flags, waypoint, index = list(w.flags), list(c.waypoint), list(c.pair_index)
    if not (len(w.min_distance) == len(w.pairs_checked) == len(w.pairs_candidate) ==
            len(flags)) or len(w.pair_index):
        raise InconsistentReply("waypoint columns")
    check_lengths(lengths, len(waypoint))
    if sum(c.gradient_a_count) != len(c.gradient_a) or \
            sum(c.gradient_b_count) != len(c.gradient_b):
        raise InconsistentReply("gradient values and counts disagree")
    start = waypoint_starts(flags, waypoint, len(table), index)
    return build_states(flags, list(w.min_distance), list(w.pairs_checked),
                        list(w.pairs_candidate), start, index, list(c.distance),
                        list(c.geometry), list(c.status), list(c.iterations),
                        list(c.epa_iterations), list(c.part_pair_count),
                        _gradient_lists(c), table_sides(table), all_pairs)


def _gradient_lists(c):
    if not len(c.gradient_a_count) and not len(c.gradient_b_count):
        return None
    return (list(c.gradient_a_count), list(c.gradient_a), list(c.gradient_b_count),
            list(c.gradient_b), list(c.subgradient))


def _pair(side, g, distance, status, iterations, epa_iterations, part_pair_count):
    """A pair dict (pair_to_dict's) from its table entry's (a, b, padding), its 15 geometry
    values and its numbers (status: the name)."""
    a, b, padding = side
    return {"a": a, "b": b, "distance": distance, "status": status, "iterations": iterations,
            "epa_iterations": epa_iterations, "padding": padding,
            "part_pair_count": part_pair_count, "point_a": tuple(g[0:3]),
            "point_b": tuple(g[3:6]), "local_point_a": tuple(g[6:9]),
            "local_point_b": tuple(g[9:12]), "normal": tuple(g[12:15])}


def check_segment_lengths(lengths, n_table, pair_index):
    """Checks the lengths ({field: length}) of segment columns and their pair indices
    (-1, or an entry of a table of n_table); returns the number of segments."""
    n = lengths["verdict"]
    for name in _SEGMENT_FIELDS:
        want = 15 * n if name == "geometry" else n
        if lengths[name] != want:
            raise InconsistentReply("segment %s: %d entries for %d segments"
                                    % (name, lengths[name], n))
    if n and (min(pair_index) < -1 or max(pair_index) >= n_table):
        raise InconsistentReply("a segment's pair index beyond the pair table")
    return n


def segment_dicts(cols, sides):
    """The segment dicts of Client.query_trajectory (segment_to_dict's) from the lists of
    the segment columns ({field: list}) and the pair table's sides (table_sides)."""
    out = []
    for i in range(len(cols["verdict"])):
        if not cols["evaluated"][i]:  # after the first contact in first-collision mode
            out.append({"evaluated": False})
            continue
        verdict, k = cols["verdict"][i], cols["pair_index"][i]
        pair = None
        if k >= 0:
            code = cols["status"][i]
            try:
                name = pb.StatusCode.Name(code)[len("STATUS_CODE_"):]
            except ValueError:
                name = "UNKNOWN"
            pair = _pair(sides[k], cols["geometry"][15 * i:15 * i + 15], cols["distance"][i],
                         name, cols["iterations"][i], cols["epa_iterations"][i],
                         cols["part_pair_count"][i])
        d = {"evaluated": True, "verdict": _VERDICT.get(verdict, "unspecified"),
             "t": cols["t"][i], "pair": pair, "pairs_checked": cols["pairs_checked"][i],
             "pairs_undecided": cols["pairs_undecided"][i],
             "evaluations": cols["evaluations"][i]}
        if verdict == 1:
            c = cols["clearance_lower_bound"][i]
            d["clearance_lower_bound"] = None if c != c else c  # NaN: none
        out.append(d)
    return out


def segment_columns_dicts(tr):
    """The segments of a TrajectoryResult's segment_columns as the dicts of
    Client.query_trajectory, from plain lists (no numpy)."""
    if len(tr.segments):
        raise InconsistentReply("segment columns and SegmentResults in one reply")
    c = tr.segment_columns
    cols = {name: list(getattr(c, name)) for name in _SEGMENT_FIELDS}
    check_segment_lengths({k: len(v) for k, v in cols.items()}, len(tr.pair_table),
                          cols["pair_index"])
    return segment_dicts(cols, table_sides(tr.pair_table))


def build_states(flags, min_distance, pairs_checked, pairs_candidate, start, index, distance,
                 geometry, status, iterations, epa_iterations, part_pair_count, gradients,
                 sides, all_pairs):
    """The per-waypoint dicts (state_to_dict's) from lists of the column values; the closest
    of a waypoint is the first dict of its "pairs" (ALL_WITHIN: all_pairs)."""
    names = {code: pb.StatusCode.Name(code)[len("STATUS_CODE_"):]
             for code in set(status)} if status else {}
    ga = gb = None
    if gradients is not None:
        ga_count, ga_values, gb_count, gb_values, sub = gradients
        ga = gb = 0
    pairs = []
    for k in range(len(index)):
        d = _pair(sides[index[k]], geometry[15 * k:15 * k + 15], distance[k], names[status[k]],
                  iterations[k], epa_iterations[k], part_pair_count[k])
        a, b = d["a"], d["b"]
        if gradients is not None:
            na, nb = ga_count[k], gb_count[k]
            if na or nb:
                grad = {}
                if na:
                    grad[a["robot"]] = ga_values[ga:ga + na]
                if nb:
                    grad[b["robot"]] = gb_values[gb:gb + nb]
                d["gradient"] = grad
                d["subgradient"] = bool(sub[k])
            ga += na
            gb += nb
        pairs.append(d)
    states = []
    for i, f in enumerate(flags):
        mine = pairs[start[i]:start[i + 1]]
        states.append({"evaluated": bool(f & FLAG_EVALUATED),
                       "min_distance": min_distance[i] if f & FLAG_HAS_MIN_DISTANCE else None,
                       "closest": mine[0] if mine else None,
                       "pairs": mine if all_pairs else [],
                       "colliding": bool(f & FLAG_COLLIDING),
                       "truncated": bool(f & FLAG_TRUNCATED),
                       "pairs_checked": pairs_checked[i], "pairs_candidate": pairs_candidate[i]})
    return states


_RESPONSE_TRAJECTORY = pb.Response.DESCRIPTOR.fields_by_name["trajectory"].number
_PAIR_COLUMNS = pb.TrajectoryResult.DESCRIPTOR.fields_by_name["pair_columns"].number
_COLUMNS = pb.TrajectoryResult.DESCRIPTOR.fields_by_name["columns"].number


def _raw_columns(raw):
    """The length-delimited fields of the PairColumns and WaypointColumns of a serialized
    Response, as views of its bytes; (None, None) when they are not there as one message each."""
    try:
        top = length_delimited_fields(raw, (_RESPONSE_TRAJECTORY,))
        if _RESPONSE_TRAJECTORY not in top:
            return None, None
        traj = length_delimited_fields(top[_RESPONSE_TRAJECTORY], (_PAIR_COLUMNS, _COLUMNS))
        if _PAIR_COLUMNS not in traj or _COLUMNS not in traj:
            return None, None
        return length_delimited_fields(traj[_PAIR_COLUMNS]), length_delimited_fields(
            traj[_COLUMNS])
    except (InconsistentReply, IndexError):
        return None, None


def _arrays(np, fields, message):
    """The per-pair numpy arrays from the fields' bytes, or None when an array's length is not
    the parsed message's (then the bytes are not the plain packed encoding)."""
    arrays = {}
    for name, (number, dtype) in _PAIR_FIELDS.items():
        a = np.frombuffer(fields.get(number, b""), dtype=dtype)
        if len(a) != len(getattr(message, name)):
            return None
        arrays[name] = a
    return arrays


class TrajectoryArrays:
    """A trajectory result as numpy arrays (Client.query_trajectory_arrays): the numbers of
    query_trajectory's dicts, bit for bit, one array per field. The arrays are read-only views
    of the reply's bytes.

    Per waypoint (n): flags (uint32, FLAG_* bits), waypoint_min_distance (float64, NaN where
    the waypoint reports no pair), pairs_checked, pairs_candidate (uint32), waypoint_start (int64,
    n + 1: the pairs of waypoint w are [waypoint_start[w], waypoint_start[w + 1])).
    Per pair (m; every reported pair of every waypoint in order, closest first -- ALL_WITHIN:
    each waypoint's list, otherwise its closest pair): waypoint, pair_index (uint32; the pair's
    names are table[pair_index]), distance (float64), geometry (m x 15 float64) and its views
    point_a, point_b, local_point_a, local_point_b, normal (m x 3), status (int32 StatusCode,
    status_name gives the name), iterations, epa_iterations (int32), part_pair_count (uint32).
    With gradients: gradient_a, gradient_b (float64, every pair's values concatenated),
    gradient_a_start, gradient_b_start (int64, m + 1 offsets), subgradient (bool); else None.
    table: per pair-table entry (a, b, padding), "a" and "b" as in the pair dicts.
    Trajectory: min_distance (None without pairs), min_waypoint, first_collision,
    colliding_waypoints, cache_hit, revision, handler_seconds (the daemon's time on the
    request), joint_names (with gradients).
    Continuous (continuous True; else these are None): per segment (waypoint i to i + 1; the
    numbers of query_trajectory's "segments", bit for bit) segment_verdict (int32, 1 clear,
    2 contact, 3 undecided, 0 not evaluated), segment_t (float64), segment_clearance_lower_bound
    (float64, NaN where there is none), segment_pair_index (int32 into table, -1 when the
    segment has no pair; then its pair numbers are zero), segment_distance (float64),
    segment_geometry (n x 15 float64), segment_status, segment_iterations,
    segment_epa_iterations (int32), segment_part_pair_count, segment_pairs_checked,
    segment_pairs_undecided (uint32), segment_evaluations (uint64), segment_evaluated (bool);
    first_contact_segment, undecided_segments; segments: the segment dicts, built on first use.
    waypoints: the per-waypoint dicts of query_trajectory, built on first use; to_dict(): the
    whole dict of query_trajectory."""

    def __init__(self, response, all_pairs, gradients, raw=None):
        """response: the parsed reply; raw: its bytes, whose packed fields are read in place
        when they are as the parsed message says (else the message is serialized again)."""
        import numpy as np

        tr = response.trajectory
        if not tr.HasField("pair_columns"):
            raise InconsistentReply("the reply has no pair columns (a daemon older than this "
                                    "client): use query_trajectory")
        w = tr.columns
        n = len(w.flags)
        fields, wfields = _raw_columns(raw) if raw else (None, None)
        arrays = _arrays(np, fields, tr.pair_columns) if fields is not None else None
        if arrays is None or wfields is None or \
                len(wfields.get(_WAYPOINT_DOUBLES["min_distance"], b"")) != 8 * n:
            fields = length_delimited_fields(tr.pair_columns.SerializeToString())
            wfields = length_delimited_fields(w.SerializeToString())
            arrays = _arrays(np, fields, tr.pair_columns)
            if arrays is None:
                raise InconsistentReply("pair columns of the wrong lengths")
        self.flags = np.array(w.flags, dtype=np.uint32)
        self.pairs_checked = np.array(w.pairs_checked, dtype=np.uint32)
        self.pairs_candidate = np.array(w.pairs_candidate, dtype=np.uint32)
        md = np.frombuffer(wfields.get(_WAYPOINT_DOUBLES["min_distance"], b""), dtype="<f8")
        if len(md) != n or len(self.pairs_checked) != n or len(self.pairs_candidate) != n or \
                len(w.pair_index):
            raise InconsistentReply("waypoint columns")
        lengths = {name: len(a) for name, a in arrays.items()}
        m = len(arrays["waypoint"])
        self._tr = tr
        check_lengths(lengths, m)
        wp = arrays["waypoint"]
        if m and (np.any(wp[1:] < wp[:-1]) or int(wp[-1]) >= n):
            raise InconsistentReply("waypoint indices out of order or out of range")
        start = np.searchsorted(wp, np.arange(n + 1), side="left").astype(np.int64)
        has = (self.flags & FLAG_HAS_CLOSEST) != 0
        if np.any(has != (start[1:] > start[:-1])):
            raise InconsistentReply("flags and pairs disagree")
        if m and int(arrays["pair_index"].max()) >= len(tr.pair_table):
            raise InconsistentReply("a pair index beyond the pair table")
        self.waypoint_start = start
        self.waypoint_min_distance = np.where((self.flags & FLAG_HAS_MIN_DISTANCE) != 0, md, np.nan)
        self._min_distance_raw = md
        self.waypoint = wp
        self.pair_index = arrays["pair_index"]
        self.distance = arrays["distance"]
        self.geometry = arrays["geometry"].reshape(m, 15)
        g = self.geometry
        self.point_a, self.point_b = g[:, 0:3], g[:, 3:6]
        self.local_point_a, self.local_point_b, self.normal = g[:, 6:9], g[:, 9:12], g[:, 12:15]
        self.status = arrays["status"]
        self.iterations = arrays["iterations"]
        self.epa_iterations = arrays["epa_iterations"]
        self.part_pair_count = arrays["part_pair_count"]
        self.gradient_a = self.gradient_b = self.gradient_a_start = None
        self.gradient_b_start = self.subgradient = None
        if lengths["gradient_a_count"] or lengths["gradient_b_count"]:
            self.gradient_a_start = np.concatenate(([0], np.cumsum(
                arrays["gradient_a_count"], dtype=np.int64)))
            self.gradient_b_start = np.concatenate(([0], np.cumsum(
                arrays["gradient_b_count"], dtype=np.int64)))
            if self.gradient_a_start[-1] != lengths["gradient_a"] or \
                    self.gradient_b_start[-1] != lengths["gradient_b"]:
                raise InconsistentReply("gradient values and counts disagree")
            self.gradient_a, self.gradient_b = arrays["gradient_a"], arrays["gradient_b"]
            self.subgradient = arrays["subgradient"].view(np.bool_)
        self._counts = (arrays["gradient_a_count"], arrays["gradient_b_count"])
        self.all_pairs = all_pairs
        has_min = tr.WhichOneof("min_distance_opt") == "min_distance"
        self.min_distance = tr.min_distance if has_min else None
        self.min_waypoint = tr.min_waypoint
        self.first_collision = tr.first_collision
        self.colliding_waypoints = tr.colliding_waypoints
        self.cache_hit = tr.trajectory_cache_hit
        self.revision = response.revision
        self.handler_seconds = response.handler_seconds
        self.joint_names = ({j.robot: list(j.names) for j in tr.joint_names} if gradients
                            else None)
        self._table = None
        self._waypoints = None
        self._segment_arrays(np, tr)

    def _segment_arrays(self, np, tr):
        """The segment arrays (SegmentColumns) of a continuous query, else None."""
        self.continuous = tr.HasField("segment_columns")
        self._segments = None
        self.first_contact_segment = self.undecided_segments = None
        for name in _SEGMENT_FIELDS:
            setattr(self, "segment_" + name, None)
        if len(tr.segments):
            raise InconsistentReply("the reply's segments are not columns (a daemon older "
                                    "than this client): use query_trajectory")
        if not self.continuous:
            return
        c = tr.segment_columns
        fields = length_delimited_fields(c.SerializeToString())
        arrays = {name: np.frombuffer(fields.get(number, b""), dtype=dtype)
                  for name, (number, dtype) in _SEGMENT_FIELDS.items()}
        lengths = {name: len(a) for name, a in arrays.items()}
        if any(lengths[name] != len(getattr(c, name)) for name in _SEGMENT_FIELDS):
            raise InconsistentReply("segment columns not in the packed encoding")
        n = check_segment_lengths(lengths, len(tr.pair_table), arrays["pair_index"])
        arrays["geometry"] = arrays["geometry"].reshape(n, 15)
        arrays["evaluated"] = arrays["evaluated"].view(np.bool_)
        for name, a in arrays.items():
            setattr(self, "segment_" + name, a)
        self.first_contact_segment = tr.first_contact_segment
        self.undecided_segments = tr.undecided_segments

    @property
    def segments(self):
        """The segment dicts of query_trajectory (continuous; built once, on first use),
        else None."""
        if self.continuous and self._segments is None:
            cols = {name: getattr(self, "segment_" + name).ravel().tolist()
                    for name in _SEGMENT_FIELDS}
            self._segments = segment_dicts(cols, self.table)
        return self._segments

    def __len__(self):
        """The number of pairs."""
        return len(self.distance)

    @property
    def table(self):
        if self._table is None:
            self._table = table_sides(self._tr.pair_table)
        return self._table

    @property
    def waypoints(self):
        """The per-waypoint dicts of query_trajectory (built once, on first use)."""
        if self._waypoints is None:
            grads = None
            if self.gradient_a is not None:
                grads = (self._counts[0].tolist(), self.gradient_a.tolist(),
                         self._counts[1].tolist(), self.gradient_b.tolist(),
                         self.subgradient.tolist())
            self._waypoints = build_states(
                self.flags.tolist(), self._min_distance_raw.tolist(),
                self.pairs_checked.tolist(), self.pairs_candidate.tolist(),
                self.waypoint_start.tolist(), self.pair_index.tolist(), self.distance.tolist(),
                self.geometry.ravel().tolist(), self.status.tolist(), self.iterations.tolist(),
                self.epa_iterations.tolist(), self.part_pair_count.tolist(), grads, self.table,
                self.all_pairs)
        return self._waypoints

    def to_dict(self):
        """The whole result as Client.query_trajectory gives it."""
        out = {"revision": self.revision, "min_distance": self.min_distance,
               "min_waypoint": self.min_waypoint, "first_collision": self.first_collision,
               "colliding_waypoints": self.colliding_waypoints, "cache_hit": self.cache_hit,
               "waypoints": self.waypoints}
        if self.joint_names is not None:
            out["joint_names"] = self.joint_names
        if self.continuous:
            out["segments"] = self.segments
            out["first_contact_segment"] = self.first_contact_segment
            out["undecided_segments"] = self.undecided_segments
        return out

