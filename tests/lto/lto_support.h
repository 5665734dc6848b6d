// What the LTO and real-package tests share: the sites a -D printed, ELF
// file offsets to link-time addresses, and gdb as the oracle of which line
// starts at an address.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "definition_sites.h"

namespace lto_test {

// The uprobe offsets of the definitions -D printed ("p:G/E PATH:0xOFF ..."), in order.
std::vector<uint64_t> definition_offsets(const std::string &definitions);

// The offsets that appear more than once in those definitions (one address, one site).
using definition_sites::repeated_offsets;

// The link-time address of file offset `offset` of the ELF file at `path`, by its program headers.
std::optional<uint64_t> address_of_offset(const std::string &path, uint64_t offset);

// A source line as gdb names it: the file as its line table spells it ("../Python/ceval.c").
struct GdbLine {
  std::string file;
  int line = 0;
  bool starts_here = false;  // gdb says the line "starts at address" this one
};

// gdb's `info line *ADDRESS` for each address, in one gdb run; nullopt
// where gdb names no line. Empty when gdb is not installed.
std::vector<std::optional<GdbLine>> gdb_lines_at(const std::string &program, const std::vector<uint64_t> &addresses);

// The addresses where gdb puts a breakpoint on `location` ("lto_work.c:12"), without running the program.
std::vector<uint64_t> gdb_breakpoint_addresses(const std::string &program, const std::string &location);

bool have_gdb();

// gdb as the oracle of a line probe's sites on `program` (link-time
// addresses): every site is one of the places where gdb breaks on
// `line` of `file` (its basename) or one where gdb's `info line` says that
// line starts, the first place gdb breaks on is a site, and there gdb says
// the line starts. Skips the test when gdb is not installed.
void expect_sites_agree_with_gdb(const std::string &program, const std::vector<uint64_t> &sites, const std::string &file,
                                 int line);

// The last path component.
std::string basename_of(const std::string &path);

}  // namespace lto_test
