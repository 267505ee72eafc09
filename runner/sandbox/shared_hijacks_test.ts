import { deepEqual } from "node:assert/strict";
import { entryPointFiles, fileHijacks, pytestPluginHijacks } from "./shared_hijacks.ts";

const PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

Deno.test("fileHijacks: each known hijack, found once, sorted by path", () => {
  const found = fileHijacks(
    [
      { path: "/usr/local/bin/pytest", kind: "added" },
      { path: "/usr/lib/python3/dist-packages/zz.pth", kind: "added" },
      { path: "/usr/lib/python3.11/sitecustomize.py", kind: "modified" },
      { path: "/root/conftest.py", kind: "added" },
      { path: "/usr/bin/bash", kind: "deleted" },
      { path: "/etc/motd", kind: "modified" },
      { path: "/opt/tools/python3", kind: "added" },
      { path: "/home/x.pth", kind: "added" },
    ],
    ["conftest.py", "tests/conftest.py", "solution.py"],
    "/app",
    PATH,
  );
  deepEqual(found, [
    { flag: "conftest", path: "/app/conftest.py" },
    { flag: "conftest", path: "/app/tests/conftest.py" },
    { flag: "conftest", path: "/root/conftest.py" },
    { flag: "sitecustomize", path: "/usr/lib/python3.11/sitecustomize.py" },
    { flag: "pth_file", path: "/usr/lib/python3/dist-packages/zz.pth" },
    { flag: "path_shadow", path: "/usr/local/bin/pytest" },
  ]);
});

Deno.test("fileHijacks: a pytest module at the top of the workdir shadows the real one", () => {
  deepEqual(
    fileHijacks(
      [],
      ["pytest.py", "_pytest", "_pytest/main.py", "lib/pytest.py", "pytest_x.py"],
      "/app",
      PATH,
    ),
    [{ flag: "path_shadow", path: "/app/_pytest" }, {
      flag: "path_shadow",
      path: "/app/pytest.py",
    }],
  );
});

Deno.test("fileHijacks: an honest solution is flagged with nothing", () => {
  deepEqual(
    fileHijacks([{ path: "/var/log/app.log", kind: "added" }], ["deduplicate.py"], "/app", PATH),
    [],
  );
});

Deno.test("fileHijacks: changes under the loader's configuration, the interpreter and PATH", () => {
  deepEqual(
    fileHijacks(
      [
        { path: "/etc", kind: "modified" },
        { path: "/etc/ld.so.preload", kind: "added" },
        { path: "/etc/ld.so.conf.d", kind: "modified" },
        { path: "/etc/ld.so.conf.d/x.conf", kind: "added" },
        { path: "/usr/lib/python3.11/encodings/__init__.py", kind: "modified" },
        // Python's own bytecode cache, written at import, is not flagged.
        { path: "/usr/lib/python3.11/json/__pycache__", kind: "added" },
        { path: "/usr/lib/python3.11/json/__pycache__/decoder.cpython-311.pyc", kind: "added" },
        { path: "/usr/local/lib/python3.11/shadow.py", kind: "added" },
        // An added package (pip install) is not flagged; a changed one is.
        { path: "/usr/local/lib/python3.11/site-packages/requests/api.py", kind: "added" },
        { path: "/usr/lib/python3/dist-packages/_pytest/main.py", kind: "modified" },
        { path: "/usr/bin", kind: "modified" },
        { path: "/usr/bin/python3.11", kind: "modified" },
        { path: "/usr/bin/jq", kind: "added" },
        {
          path: "/usr/lib/python3/dist-packages/evil-1.0.dist-info/entry_points.txt",
          kind: "added",
        },
      ],
      [],
      "/app",
      PATH,
    ),
    [
      { flag: "loader_config", path: "/etc/ld.so.conf.d/x.conf" },
      { flag: "loader_config", path: "/etc/ld.so.preload" },
      { flag: "path_shadow", path: "/usr/bin/python3.11" },
      { flag: "interpreter_changed", path: "/usr/lib/python3.11/encodings/__init__.py" },
      { flag: "interpreter_changed", path: "/usr/lib/python3/dist-packages/_pytest/main.py" },
      { flag: "interpreter_changed", path: "/usr/local/lib/python3.11/shadow.py" },
    ],
  );
});

Deno.test("entryPointFiles and pytestPluginHijacks: only a [pytest11] group is a plugin", () => {
  const plugin = "/usr/lib/python3/dist-packages/evil-1.0.dist-info/entry_points.txt";
  const scripts = "/usr/local/lib/python3.11/site-packages/tool-2.egg-info/entry_points.txt";
  deepEqual(
    entryPointFiles([
      { path: plugin, kind: "added" },
      { path: scripts, kind: "modified" },
      { path: "/opt/entry_points.txt", kind: "added" },
    ]),
    [plugin, scripts],
  );
  deepEqual(
    pytestPluginHijacks(
      new Map([
        [plugin, "[console_scripts]\nx = x:main\n\n[pytest11]\nevil = evil_plugin\n"],
        [scripts, "[console_scripts]\ntool = tool:main\n"],
      ]),
    ),
    [{ flag: "pytest_plugin", path: plugin }],
  );
});

Deno.test("fileHijacks: what Python imports from sys.path before the standard library's sources", () => {
  deepEqual(
    fileHijacks(
      [
        // The standard library's zip is on sys.path whether it exists or not.
        { path: "/usr/lib/python311.zip", kind: "added" },
        // A sourceless module and an extension module in the standard library.
        { path: "/usr/lib/python3.11/pytest.pyc", kind: "added" },
        {
          path: "/usr/lib/python3.11/lib-dynload/_pytest.cpython-311-x86_64-linux-gnu.so",
          kind: "added",
        },
        // Python's own cache, and data files, are not modules.
        { path: "/usr/lib/python3.11/__pycache__/shlex.cpython-311.pyc", kind: "added" },
        { path: "/usr/lib/python3.11/notes.txt", kind: "added" },
        // pytest shadowed at the top of a package directory, as a module and as a package.
        { path: "/usr/local/lib/python3.11/dist-packages/pytest.py", kind: "added" },
        { path: "/usr/local/lib/python3.11/site-packages/_pytest/__init__.py", kind: "added" },
        // Other packages, and pytest's own plugins, are an install, not a shadow.
        { path: "/usr/local/lib/python3.11/dist-packages/pytest_x.py", kind: "added" },
        { path: "/usr/local/lib/python3.11/dist-packages/lib/pytest.py", kind: "added" },
      ],
      [],
      "/app",
      PATH,
    ),
    [
      {
        flag: "interpreter_changed",
        path: "/usr/lib/python3.11/lib-dynload/_pytest.cpython-311-x86_64-linux-gnu.so",
      },
      { flag: "interpreter_changed", path: "/usr/lib/python3.11/pytest.pyc" },
      { flag: "interpreter_changed", path: "/usr/lib/python311.zip" },
      { flag: "path_shadow", path: "/usr/local/lib/python3.11/dist-packages/pytest.py" },
      { flag: "path_shadow", path: "/usr/local/lib/python3.11/site-packages/_pytest/__init__.py" },
    ],
  );
});
