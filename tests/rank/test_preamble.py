"""A file's preamble (``rrg.rank.preamble``): its licence, package line and imports, which
the passages' order puts after its file's other passages; a doc comment is no preamble."""

from __future__ import annotations

import pytest

from rrg.rank.preamble import is_preamble

APACHE = """// Copyright 2018 The Abseil Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS.
"""


@pytest.mark.parametrize(
    "text",
    [
        APACHE,
        APACHE + "\n#ifndef ABSL_HASH_H_\n#define ABSL_HASH_H_\n\n#include <cstddef>\n",
        "// Copyright 2014 Manu Martinez-Almeida. All rights reserved.\n//go:build appengine\n"
        "\npackage gin\n",
        'package render\n\nimport (\n\t"bytes"\n\t"net/http"\n\n\t"github.com/gin/codec/json"\n)\n',
        "use std::io;\nuse crate::{\n    attr::Attr,\n    check,\n};\nextern crate syn;\n",
        "# -*- coding: utf-8 -*-\nimport os\nfrom typing import (\n    Any,\n    Dict as D,\n)\n",
        'import type { Doc } from "./doc.js";\nimport * as core from "./core.js";\nimport {\n'
        '  a,\n  b,\n} from "./util.js";\n',
        "/*\n * Licensed to the Apache Software Foundation (ASF) under one or more\n */\n"
        "package org.apache.commons.lang3;\n\nimport java.util.Objects;\n",
        "require 'json'\nrequire_relative 'helpers'\n",
        # Several names a line, a one-line module doc above.
        "//! Deserialization for untagged enums.\nuse crate::de::{\n    expr_is_missing, "
        "field_i,\n    wrap_deserialize_field_with,\n};\n",
        "from pydantic import (\n    BaseModel, Field as F,\n    validator,\n)\n",
        # A list's last names and its bracket on one line (sympy's imports).
        "from sympy.sets.sets import (Set, Interval, Union,\n    ProductSet)\n"
        "from sympy.utilities.misc import filldedent\n",
    ],
)
def test_a_licence_and_imports_are_a_preamble(text: str) -> None:
    assert is_preamble(text)


@pytest.mark.parametrize(
    "text",
    [
        # A header's doc comment above its includes says what the file is for.
        "// In most cases, your default choice for a hash map should be a map of type\n"
        "// `flat_hash_map`, which stores its values inline.\n//\n"
        "// `flat_hash_map` is not exception-safe.\n\n#include <cstddef>\n",
        # So does the doc after a licence, in the same comment.
        APACHE + "//\n// Historical note: Abseil once provided an implementation of optional\n"
        "// as a polyfill for std::optional prior to C++17. Now that C++17 is\n"
        "// required, absl::optional is an alias for std::optional.\n",
        "//! A collection of tasks spawned on a Tokio runtime, awaited as they\n"
        "//! complete, and aborted when the set is dropped.\n//!\n"
        "//! See the documentation for the JoinSet type.\nuse std::future::Future;\n",
        '"""Parse the configuration file into settings."""\nimport os\n',
        "import os\n\nlogger = logging.getLogger(__name__)\n",
        "from os import path\nreturn a, b\n",
        "from os import path\nvalue = compute(a,\n    b)\n",
        "#include <stddef.h>\n\n#define BUF_SIZE 4096\n",  # a macro's value is code
        "def parse(path):\n    return open(path).read()\n",
        "# Installation\n\nRun the installer, then import the module.\n",  # prose, no code
        "// Package render writes responses: JSON, XML, HTML and more.\n",  # no import
        "",
    ],
)
def test_what_says_or_does_something_is_no_preamble(text: str) -> None:
    assert not is_preamble(text)
