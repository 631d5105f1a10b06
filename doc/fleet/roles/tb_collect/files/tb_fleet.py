#!/usr/bin/env python3
"""tb_fleet.py: the controller's side of doc/fleet/collect.yml (run by Ansible's own Python).
`land DIR NAME...`: logs fetched into DIR/.incoming/ get their final name in DIR only when whole.
`report`: the morning report over every host of the limit, computed once (JSON in on stdin).
Not a collector itself (Ansible fetches) and never deletes a log; standard library only."""
import base64
import datetime
import gzip
import html
import json
import os
import re
import subprocess
import sys
import zlib

STAMP = re.compile(r"_([0-9]{8}T[0-9]{6}Z)(-[0-9]+)?\.csv\.gz$")
ENOSPC_WORDS = ("No space left", "ENOSPC", "Disk quota exceeded")


def log_check(path):
    """'' when PATH is a whole log (gzip intact, last line `# end:`), else why not; plus that line."""
    last = b""
    try:
        with gzip.open(path, "rb") as f:
            for line in f:
                if line.strip():
                    last = line
    except (OSError, EOFError, zlib.error) as e:
        return "not a whole gzip file (%s)" % (getattr(e, "strerror", None) or e), ""
    end = last.decode("utf-8", "replace").strip()
    if not end.startswith("# end:"):
        return "no end line (the last line is %r)" % end[:80], ""
    return "", end


def land(folder, names):
    """Each DIR/.incoming/NAME that is whole is linked to DIR/NAME (never replacing one) and
    its temporary name removed; the rest stay there and are fetched again next time."""
    out = {"landed": [], "bad": []}
    for name in names:
        if "/" in name or name.startswith("."):
            out["bad"].append({"name": name, "why": "not a log name"})
            continue
        tmp = os.path.join(folder, ".incoming", name)
        final = os.path.join(folder, name)
        if not os.path.exists(tmp):
            out["bad"].append({"name": name, "why": "not transferred"})
            continue
        why, _ = log_check(tmp)
        if why:
            out["bad"].append({"name": name, "why": why})
            continue
        try:
            os.link(tmp, final)     # fails rather than replace a collected log
        except FileExistsError:
            out["bad"].append({"name": name, "why": "a different file of this name is already here"})
            continue
        except OSError as e:
            out["bad"].append({"name": name, "why": "cannot link to its final name: %s" % e.strerror})
            continue
        os.unlink(tmp)
        out["landed"].append(name)
    json.dump(out, sys.stdout)
    print()
    return 0


def stamp_of(name):
    m = STAMP.search(name)
    return m.group(1) if m else None


def host_logs(folder):
    try:
        names = [n for n in os.listdir(folder) if stamp_of(n) and not n.startswith(".")]
    except FileNotFoundError:
        return []
    return sorted(names, key=lambda n: (stamp_of(n), n))


def run_tool(tool, args, cwd):
    p = subprocess.run([tool] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    return p.returncode, p.stdout, p.stderr.strip()


class Writer:
    """Writes the report's files; a failure (a full disk) is the controller's, never a host's."""

    def __init__(self, top):
        self.top = top
        self.errors = []

    def put(self, rel, text):
        path = os.path.join(self.top, rel)
        tmp = os.path.join(os.path.dirname(path), ".%s.tmp" % os.path.basename(path))
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(tmp, "w") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except OSError as e:
            self.errors.append("cannot write %s: %s" % (path, e.strerror))
            try:
                os.unlink(tmp)
            except OSError:
                pass


def nights_ago(stamp, now):
    t = datetime.datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
    return (now - t).total_seconds() / 3600.0


def host_report(h, top, tool, night_hours, now, w):
    """One host's lines and whether it is well. h: what collect.yml found this morning."""
    lines, bad = [], []
    state = h.get("state", "unreachable")
    hid = h.get("id") or ""
    why = h.get("why") or ""
    full = any(word in why for word in ENOSPC_WORDS) or any(
        word in e["why"] for e in h.get("fetch_errors", []) for word in ENOSPC_WORDS)
    if state == "unreachable":
        bad.append("unreachable: %s" % (why or "no answer over ssh"))
    elif state == "failed" and full:
        bad.append("not collected: the controller's disk is full (the logs stay on the board"
                   " and come with the next collect)")
    elif state == "failed":
        bad.append("collect failed: %s" % (why or "?"))
    elif state == "not run":
        lines.append("not contacted by this run (--tags report): from the logs here only")
    for e in h.get("fetch_errors", []):
        if any(word in e["why"] for word in ENOSPC_WORDS):
            if state != "failed":
                bad.append("%s not collected: the controller's disk is full (it stays on the board)"
                           % e["name"])
        else:
            bad.append("%s not collected: %s (fetched again next collect)" % (e["name"], e["why"]))
    for b in h.get("bad", []):
        bad.append("%s not kept: %s (fetched again next collect)" % (b["name"], b["why"]))
    if not hid:
        bad.append("no log here: never collected")
        return {"ok": False, "lines": lines, "bad": bad, "id": "", "full": full}
    folder = os.path.join(top, hid)
    logs = host_logs(folder)
    if h.get("landed"):
        lines.append("collected %d new log(s): %s" % (len(h["landed"]), ", ".join(h["landed"])))
    elif state == "collected":
        lines.append("collected: nothing new")
    corrupt = []
    latest_end = ""
    for i, name in enumerate(logs):
        why, end = log_check(os.path.join(folder, name))
        if why:
            corrupt.append("%s: %s" % (name, why))
        if i == len(logs) - 1:
            latest_end = end if not why else "(corrupt: %s)" % why
    if corrupt:
        bad.append("corrupt log(s) here: " + "; ".join(corrupt))
    if not logs and not full:      # with a full disk here, the board is not to blame
        bad.append("no log at all")
    elif logs:
        latest = logs[-1]
        hours = nights_ago(stamp_of(latest), now)
        if hours > night_hours and not full:
            bad.append("no log for %d night(s) (latest %s)" % (max(1, int(hours // 24)), latest))
        if not latest_end.startswith("# end: complete"):
            bad.append("last night failed: %s %s" % (latest, latest_end or "(no end line)"))
        else:
            lines.append("latest night %s: %s" % (latest, latest_end))
        os.makedirs(os.path.join(top, "history"), exist_ok=True)
        rc, out, err = run_tool(tool, ["history"] + [os.path.join(hid, n) for n in logs
                                                      if not any(c.startswith(n + ":") for c in corrupt)]
                                + ["--html", os.path.join("history", hid + ".html")], top)
        # history exits 1 both on a regression and when it cannot write: its count says which
        m = re.search(r"^([0-9]+) series regressed on the latest night", out, re.M)
        if m and int(m.group(1)) > 0:
            bad.append("regression: %s series slower on the latest night (history/%s.txt)"
                       % (m.group(1), hid))
        if rc != 0 and not (m and int(m.group(1)) > 0 and not err):
            if any(word in err for word in ENOSPC_WORDS):
                w.errors.append("history of %s: %s" % (hid, err))
            else:
                bad.append("history could not read the logs: %s" % (err or "exit %d" % rc))
        w.put(os.path.join("history", hid + ".txt"), out)
    return {"ok": not bad, "lines": lines, "bad": bad, "id": hid, "full": full}


def disk_note(top):
    try:
        st = os.statvfs(top)
    except OSError as e:
        return "cannot read %s: %s" % (top, e.strerror)
    free = st.f_bavail * st.f_frsize
    return "%d KiB free on %s" % (free // 1024, top)


def report():
    """stdin: {fleet_logs, tool, night_hours, now?, hosts: [{name, state, why, id, seen, landed,
    bad, fetch_errors}]}. stdout: JSON {hosts: {name: {ok, summary}}, controller, text}.
    id is the host's folder (its inventory name); seen, "hostname machineid12", is only shown:
    hosts that show the same one (boards cloned from one image) are named as look-alikes."""
    raw = sys.stdin.read().strip()
    cfg = json.loads(raw if raw.startswith("{") else base64.b64decode(raw).decode("utf-8"))
    top = cfg["fleet_logs"]
    now = datetime.datetime.now(datetime.timezone.utc)
    w = Writer(top)
    ids_path = os.path.join(top, "hosts.json")
    try:
        with open(ids_path) as f:
            known = json.load(f)
    except (OSError, ValueError):
        known = {}
    seen_path = os.path.join(top, "hosts-seen.json")
    try:
        with open(seen_path) as f:
            seen = json.load(f)
    except (OSError, ValueError):
        seen = {}
    for h in cfg["hosts"]:
        if h.get("seen"):
            seen[h["name"]] = h["seen"]
    alike = {}
    for name, s in seen.items():
        alike.setdefault(s, []).append(name)
    per, text = {}, []
    enospc = False
    for h in cfg["hosts"]:
        if not h.get("id"):
            h["id"] = known.get(h["name"], "")
        known[h["name"]] = h["id"] or known.get(h["name"], "")
        r = host_report(h, top, cfg["tool"], float(cfg["night_hours"]), now, w)
        enospc = enospc or r["full"]
        s = seen.get(h["name"], "")
        looks = ("host name %s, machine-id %s" % tuple(s.split(" ", 1))) if " " in s else "not seen yet"
        head = "%s (%s): %s" % (h["name"], looks, "ok" if r["ok"] else "FAILED")
        text.append(head)
        twins = sorted(n for n in alike.get(s, []) if n != h["name"]) if s else []
        if twins:
            text.append("    looks identical to %s (same host name and machine-id: cloned from one "
                              "image?): kept apart by inventory name, fleet-logs/%s/; give each board its "
                              "own machine-id (doc/fleet/README.md)" % (", ".join(twins), r["id"] or h["name"]))
        text += ["    " + x for x in r["bad"] + r["lines"]]
        per[h["name"]] = {"ok": r["ok"], "summary": "; ".join(r["bad"]) if r["bad"] else "ok"}
    all_logs = sorted(os.path.join(hid, n) for hid in set(known.values()) if hid
                      for n in host_logs(os.path.join(top, hid)))
    if all_logs:
        rc, out, err = run_tool(cfg["tool"], ["compare"] + all_logs + ["--html", "compare.html"], top)
        if rc not in (0, 1):
            w.errors.append("compare: %s" % err)
        w.put("compare.txt", out)
    w.put("hosts.json", json.dumps(known, indent=1, sort_keys=True) + "\n")
    w.put("hosts-seen.json", json.dumps(seen, indent=1, sort_keys=True) + "\n")
    if enospc:
        w.errors.insert(0, "its disk is full: logs could not be stored")

    def compose():
        controller = ["controller: " + e for e in w.errors]
        if controller:
            controller.append("controller: " + disk_note(top))
        bad_hosts = [n for n, r in per.items() if not r["ok"]]      # in the inventory's order
        groups = sorted(sorted(v) for v in alike.values() if len(v) > 1 and any(n in per for n in v))
        looks = ["look-alikes (same host name and machine-id; kept apart by inventory name): "
                 + ", ".join(g) for g in groups]
        return ["transpose-bench fleet, %s UTC, %d host(s): %s" % (
            now.strftime("%Y-%m-%d %H:%M"), len(per),
            "all well" if not bad_hosts and not controller else
            "failed: " + ", ".join(bad_hosts + (["the controller"] if controller else [])))
        ] + controller + looks, controller

    head, _ = compose()
    w.put("report.txt", "\n".join(head + text) + "\n")
    w.put("report.html", page(head + text))
    head, controller = compose()     # a report that could not be written says so too
    json.dump({"hosts": per, "controller": controller, "text": head + text}, sys.stdout)
    print()
    return 0


def page(lines):
    rows = "\n".join("<pre>%s</pre>" % html.escape(x) for x in lines)
    return ("<!doctype html><html><head><meta charset=\"utf-8\"><title>transpose-bench fleet"
            "</title></head><body><h1>transpose-bench fleet</h1>\n%s\n<p><a href=\"compare.html\">"
            "compare</a>, history per host in <a href=\"history/\">history/</a></p></body></html>\n"
            % rows)


def main(argv):
    if len(argv) >= 3 and argv[1] == "land":
        return land(argv[2], argv[3:])
    if len(argv) == 2 and argv[1] == "report":
        return report()
    sys.stderr.write("usage: tb_fleet.py land DIR NAME... | tb_fleet.py report < state.json\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
