#include "lto_support.h"

#include <elf.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "tests/common/run_program.h"

namespace lto_test {

namespace {

const std::string gdb_path = KPP_LTO_GDB;

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string hex(uint64_t v) {
  std::ostringstream out;
  out << "0x" << std::hex << v;
  return out.str();
}

run_result gdb_batch(const std::string &program, const std::vector<std::string> &commands) {
  std::vector<std::string> argv{gdb_path, "-nx", "-batch", "-ex", "set pagination off", "-ex", "set width 0"};
  for (const std::string &c : commands) {
    argv.push_back("-ex");
    argv.push_back(c);
  }
  argv.push_back(program);
  return run_program(argv);
}

}  // namespace

bool have_gdb() { return !gdb_path.empty(); }

std::string basename_of(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::vector<uint64_t> definition_offsets(const std::string &definitions) {
  static const std::regex site(R"(^[pr]:\S+ \S+:0x([0-9a-fA-F]+))");
  std::vector<uint64_t> offsets;
  for (const std::string &line : lines_of(definitions)) {
    std::smatch m;
    if (std::regex_search(line, m, site)) offsets.push_back(std::stoull(m[1].str(), nullptr, 16));
  }
  return offsets;
}

std::optional<uint64_t> address_of_offset(const std::string &path, uint64_t offset) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (!in.read(reinterpret_cast<char *>(&header), sizeof header) || header.e_ident[EI_CLASS] != ELFCLASS64) return std::nullopt;
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    in.seekg(static_cast<std::streamoff>(header.e_phoff + uint64_t{i} * header.e_phentsize));
    if (!in.read(reinterpret_cast<char *>(&segment), sizeof segment)) return std::nullopt;
    if (segment.p_type == PT_LOAD && offset >= segment.p_offset && offset < segment.p_offset + segment.p_filesz)
      return segment.p_vaddr + (offset - segment.p_offset);
  }
  return std::nullopt;
}

std::vector<std::optional<GdbLine>> gdb_lines_at(const std::string &program, const std::vector<uint64_t> &addresses) {
  if (!have_gdb() || addresses.empty()) return {};
  // One echo before each answer splits gdb's output by address.
  std::vector<std::string> commands;
  for (uint64_t a : addresses) {
    commands.push_back("echo @@" + hex(a) + "\\n");
    commands.push_back("info line *" + hex(a));
  }
  run_result r = gdb_batch(program, commands);
  std::map<uint64_t, std::optional<GdbLine>> by_address;
  static const std::regex answer(R"re(^Line (\d+) of "([^"]+)" (starts at address|is at address) (0x[0-9a-f]+))re");
  uint64_t current = 0;
  for (const std::string &line : lines_of(r.out)) {
    if (line.rfind("@@", 0) == 0) {
      current = std::stoull(line.substr(2), nullptr, 16);
      by_address[current];
      continue;
    }
    std::smatch m;
    if (by_address.count(current) && !by_address[current] && std::regex_search(line, m, answer)) {
      GdbLine found{m[2].str(), std::stoi(m[1].str()), m[3].str() == "starts at address" &&
                                                           std::stoull(m[4].str(), nullptr, 16) == current};
      by_address[current] = found;
    }
  }
  std::vector<std::optional<GdbLine>> out;
  for (uint64_t a : addresses) out.push_back(by_address[a]);
  return out;
}

std::vector<uint64_t> gdb_breakpoint_addresses(const std::string &program, const std::string &location) {
  if (!have_gdb()) return {};
  run_result r = gdb_batch(program, {"break " + location, "info breakpoints"});
  // "1       breakpoint     keep y   0x0000000000001139 in f at x.c:5" or, with
  // several locations, one "1.N  y  0x... in f at x.c:5" line each.
  static const std::regex address(R"(\s(0x[0-9a-f]+) in )");
  std::vector<uint64_t> found;
  for (const std::string &line : lines_of(r.out)) {
    std::smatch m;
    if (std::regex_search(line, m, address)) found.push_back(std::stoull(m[1].str(), nullptr, 16));
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

void expect_sites_agree_with_gdb(const std::string &program, const std::vector<uint64_t> &sites, const std::string &file,
                                 int line) {
  if (!have_gdb()) GTEST_SKIP() << "gdb is not installed: no oracle for lines";
  ASSERT_FALSE(sites.empty());
  std::string location = basename_of(file) + ":" + std::to_string(line);
  std::vector<uint64_t> breaks = gdb_breakpoint_addresses(program, location);
  ASSERT_FALSE(breaks.empty()) << "gdb finds no code at " << location;
  std::vector<std::optional<GdbLine>> at = gdb_lines_at(program, sites);
  ASSERT_EQ(at.size(), sites.size());
  for (size_t i = 0; i < sites.size(); ++i) {
    bool starts = at[i] && basename_of(at[i]->file) == basename_of(file) && at[i]->line == line && at[i]->starts_here;
    EXPECT_TRUE(std::binary_search(breaks.begin(), breaks.end(), sites[i]) || starts)
        << "0x" << std::hex << sites[i] << " is neither where gdb breaks on " << location << " nor where gdb says it starts";
  }
  EXPECT_TRUE(std::find(sites.begin(), sites.end(), breaks.front()) != sites.end())
      << "gdb's first place for " << location << ", 0x" << std::hex << breaks.front() << ", is not a site";
  std::vector<std::optional<GdbLine>> first = gdb_lines_at(program, {breaks.front()});
  ASSERT_EQ(first.size(), 1u);
  ASSERT_TRUE(first[0]) << "gdb names no line at its own breakpoint";
  EXPECT_EQ(basename_of(first[0]->file), basename_of(file));
  EXPECT_EQ(first[0]->line, line);
  EXPECT_TRUE(first[0]->starts_here);
}

}  // namespace lto_test
