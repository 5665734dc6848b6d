#include "tests/stream/uprobe_helper.h"

#include <elf.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "src/tracefs/tracefs_cxx.h"
#include "src/tracefs/tracefs_mount.h"

namespace kpp::test {

std::string fixture_path() { return KPP_STREAM_FIXTURE; }

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

uint64_t elf_symbol_file_offset(const std::string &path, const std::string &symbol) {
  std::string img = read_file(path);
  if (img.size() < sizeof(Elf64_Ehdr)) return 0;
  const char *base = img.data();
  const auto *eh = reinterpret_cast<const Elf64_Ehdr *>(base);
  if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) return 0;
  const auto *sh = reinterpret_cast<const Elf64_Shdr *>(base + eh->e_shoff);
  uint64_t vaddr = 0;
  for (int k = 0; k < eh->e_shnum && !vaddr; ++k) {
    if (sh[k].sh_type != SHT_SYMTAB && sh[k].sh_type != SHT_DYNSYM) continue;
    const auto *syms = reinterpret_cast<const Elf64_Sym *>(base + sh[k].sh_offset);
    const char *strtab = base + sh[sh[k].sh_link].sh_offset;
    for (size_t s = 0; s < sh[k].sh_size / sizeof(Elf64_Sym); ++s)
      if (symbol == strtab + syms[s].st_name && syms[s].st_value) {
        vaddr = syms[s].st_value;
        break;
      }
  }
  if (!vaddr) return 0;
  const auto *ph = reinterpret_cast<const Elf64_Phdr *>(base + eh->e_phoff);
  for (int k = 0; k < eh->e_phnum; ++k)
    if (ph[k].p_type == PT_LOAD && vaddr >= ph[k].p_vaddr && vaddr < ph[k].p_vaddr + ph[k].p_memsz)
      return vaddr - ph[k].p_vaddr + ph[k].p_offset;
  return 0;
}

Hit hit_of(const Event &e) {
  Hit h;
  if (auto *f = e.field("i")) h.i = f->value.i;
  if (auto *f = e.field("sq")) h.sq = f->value.u;
  if (auto *f = e.field("name")) h.name = f->value.text;
  if (auto *f = e.field("tag")) h.tag = f->value.u;
  return h;
}

std::vector<Hit> parse_fixture_output(const std::string &text) {
  std::vector<Hit> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("hit ", 0) != 0) continue;
    Hit h;
    char name[64] = {};
    if (std::sscanf(line.c_str(), "hit i=%ld sq=%lu name=%63s tag=0x%lx", &h.i, &h.sq, name, &h.tag) == 4) {
      h.name = name;
      out.push_back(h);
    }
  }
  return out;
}

FixtureUprobe::FixtureUprobe(const std::string &fixture, const std::string &area) {
  group_ = "kpptest_" + area + "_" + std::to_string(getpid());
  uint64_t off = elf_symbol_file_offset(fixture, "kpp_fixture_hit");
  if (!off) {
    error_ = "kpp_fixture_hit not found in " + fixture;
    return;
  }
  ev_ = tracefs_uprobe_alloc(group_.c_str(), "hit", fixture.c_str(), off,
                             "i=%di:s64 sq=%si:u64 name=+0(%dx):string tag=%cx:x64");
  if (!ev_) {
    error_ = "tracefs_uprobe_alloc failed";
    return;
  }
  if (tracefs_dynevent_create(ev_) != 0) {
    char *log = tracefs_error_last(nullptr);
    error_ = std::string("tracefs_dynevent_create failed: ") + std::strerror(errno) + (log ? std::string(" ") + log : "");
    free(log);
    return;
  }
  ok_ = true;
}

FixtureUprobe::~FixtureUprobe() {
  if (!ev_) return;
  // A session's instance may still hold the event when a test fails half-way;
  // the event is this test's own (its group is named by the test's pid), so
  // disabling it wherever it is enabled harms no one, and leaves nothing behind.
  if (ok_ && tracefs_dynevent_destroy(ev_, false) != 0) tracefs_dynevent_destroy(ev_, true);
  tracefs_dynevent_free(ev_);
}

std::vector<std::string> tracefs_instance_names() {
  std::vector<std::string> out;
  char **list = tracefs_instances(nullptr);
  for (char **p = list; p && *p; ++p) out.emplace_back(*p);
  tracefs_list_free(list);
  return out;
}

std::string top_level_enable(const std::string &group, const std::string &event) {
  auto dir = ensure_tracefs();
  if (!dir) return {};
  std::string s = read_file(*dir + "/events/" + group + "/" + event + "/enable");
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

std::string kernel_skip_reason() {
  if (geteuid() != 0) return "needs root (tracefs, uprobes)";
  auto dir = ensure_tracefs();
  if (!dir) return "no tracefs: " + dir.error().message;
  if (access((*dir + "/uprobe_events").c_str(), W_OK) != 0) return "kernel has no uprobe_events";
  return {};
}

}  // namespace kpp::test
