// BTF, the kernel's compact type information (/sys/kernel/btf/vmlinux, or a
// vmlinux's .BTF section): enough of it to probe a function by name without
// DWARF -- its prototype (parameter names and types) and what those types
// are. The format is the kernel's Documentation/bpf/btf.rst: a header, a
// type section of variable-length records (type ids count from 1; 0 is
// void) and a string section.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace kpp::btf {

struct Param {
  std::string name;
  uint32_t type = 0;
};

struct FunctionProto {
  std::string name;
  std::vector<Param> params;
  uint32_t return_type = 0;  // 0: void
};

// What a value of some type is, after typedefs and qualifiers.
struct Scalar {
  enum class Kind { Void, Int, Bool, Char, Pointer, Enum, Float, Aggregate, Other };
  Kind kind = Kind::Other;
  uint32_t size = 0;  // bytes
  bool is_signed = false;
  std::string name;   // the C spelling of the type as declared ("size_t", "struct file *")
};

class Btf {
 public:
  // Parses a BTF blob. Errors: not BTF (bad magic), truncated sections.
  static Result<Btf> parse(std::string bytes);
  // Reads and parses a file (/sys/kernel/btf/vmlinux).
  static Result<Btf> load(const std::string &path);

  // The prototype of function `name` (BTF_KIND_FUNC), when BTF has it.
  std::optional<FunctionProto> function(const std::string &name) const;
  Scalar scalar(uint32_t type) const;
  size_t type_count() const { return offsets_.size(); }

 private:
  struct Record {
    uint32_t name_off, info, size_or_type;
  };
  Record record(uint32_t id) const;
  const char *string_at(uint32_t offset) const;
  uint32_t skip_modifiers(uint32_t id) const;
  std::string spelling(uint32_t id, int depth = 0) const;

  std::string bytes_;
  size_t types_begin_ = 0, strings_begin_ = 0, strings_size_ = 0;
  std::vector<uint32_t> offsets_;  // offset of type id i+1 in bytes_
  std::vector<uint32_t> functions_;  // ids of FUNC records, sorted by name
};

}  // namespace kpp::btf
